import { LIMITS, type RequestLimits } from '../domain/request-limits.ts';
import { WIRE_TEXTS, type WireCode } from '../domain/wire-texts.ts';
import { wireError } from './wire-errors.ts';

// The request limits of domain/request-limits.ts as readers see them: the README's "Limits"
// table (test/docs.test.ts keeps it equal to limitsMarkdown()) and the OpenAPI document's
// `x-herald-limits`, which shows the values in effect on the server that serves it.

export interface LimitDoc {
  readonly limit: string;
  readonly value: number;
  readonly unit: string;
  readonly setting: string;
  readonly appliesTo: string;
  /** The answer past the limit: its status (400, or 413 for a body size) and the `message` of its body. */
  readonly status: number;
  readonly message: string;
}

export function limitDocs(limits: RequestLimits): LimitDoc[] {
  return LIMITS.map((row) => ({
    limit: row.limit, value: limits[row.key], unit: row.unit, setting: row.env, appliesTo: row.appliesTo, status: statusOf(row.code), message: WIRE_TEXTS[row.code],
  }));
}

const statusOf = (code: WireCode): number => wireError({ code }).status;

// A `|` inside a cell would end it early.
const cell = (text: string): string => text.replaceAll('|', '\\|');

/** The README table, with the defaults. */
export function limitsMarkdown(): string {
  const rows = LIMITS.map((row) =>
    `| ${cell(row.limit)} | ${row.default.toLocaleString('en-US')} ${row.unit} | \`${row.env}\` | ${statusOf(row.code)} \`${WIRE_TEXTS[row.code]}\` | ${cell(row.appliesTo)} | ${cell(row.why)} |`);
  return ['| Limit | Default | Setting | Past it | Applies to | Why this default |', '|---|---|---|---|---|---|', ...rows].join('\n') + '\n';
}
