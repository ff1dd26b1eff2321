// Money as integer minor units of 0.0001, so per-message prices like 0.0147 are
// exact and sums never drift. Decimals exist only at the edges: parsed from
// decimal text, formatted back through decimal text, never float arithmetic.

export const MONEY_SCALE = 4;
/** Minor units in one unit of currency (10^MONEY_SCALE). */
export const MINOR_PER_UNIT = 10 ** MONEY_SCALE;

/**
 * Minor units (1 = 0.0001), a safe integer. `number` rather than `bigint`: it
 * goes into JSON and SQL without conversion, and ±9e15 minor units is ±900
 * billion units of currency, far beyond any prepaid balance.
 */
export type Minor = number;

export interface ParseMoneyOptions {
  /** Accept a leading minus, for adjustments that subtract from a balance. */
  readonly allowNegative?: boolean;
}

const DECIMAL = new RegExp(`^(-?)([0-9]+)(?:\\.([0-9]{1,${MONEY_SCALE}}))?$`);

/**
 * A JSON number (`0.05`) or decimal string (`"0.0147"`) to minor units; null when
 * it is not a plain decimal, has more than 4 fraction digits, is negative without
 * `allowNegative`, or does not fit a safe integer.
 */
export function parseMoney(input: unknown, options: ParseMoneyOptions = {}): Minor | null {
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return null;
    // String(n) is the shortest decimal that round-trips, i.e. what the client wrote;
    // it uses exponents only below 1e-7 or from 1e21, both out of range anyway.
    text = String(input);
  } else if (typeof input === 'string') {
    text = input;
  } else {
    return null;
  }

  const match = DECIMAL.exec(text);
  if (match === null) return null;
  const [, sign = '', whole = '', fraction = ''] = match;
  const digits = Number(whole + fraction.padEnd(MONEY_SCALE, '0'));
  // Past 2^53 Number() rounds, and the rounded value is itself not a safe integer.
  if (!Number.isSafeInteger(digits)) return null;
  if (digits === 0) return 0; // "-0.00" is zero, not a negative amount (and never -0)
  if (sign === '-' && options.allowNegative !== true) return null;
  return sign === '-' ? -digits : digits;
}

/** Fixed 4 decimals with a leading minus when negative: 9500 → "0.9500". */
export function moneyToString(minor: Minor): string {
  assertMinor(minor);
  const digits = String(Math.abs(minor)).padStart(MONEY_SCALE + 1, '0');
  const sign = minor < 0 ? '-' : '';
  return `${sign}${digits.slice(0, -MONEY_SCALE)}.${digits.slice(-MONEY_SCALE)}`;
}

/**
 * The JSON number for the wire: 9500 → 0.95, 10000 → 1. Built from the decimal
 * text so it is the shortest exact decimal (never 0.9500000000000001); exact up to
 * 15 significant digits, the most a JSON/IEEE double carries.
 */
export function formatMoney(minor: Minor): number {
  if (minor === 0) return 0; // avoids -0 from "-0.0000"
  return Number(moneyToString(minor));
}

function assertMinor(minor: Minor): void {
  // A fraction or unsafe value here is a programming error, not bad input.
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not an amount in minor units: ${minor}`);
}
