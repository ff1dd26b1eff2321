// Display helpers: times in the browser's zone (UTC on hover), numbers in the browser's locale.

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function localTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

export function localDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateOnly.format(date);
}

/** `2026-11-23 10:04:05 UTC`: what the hover title shows. */
export function utcTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const CHANNEL_NAMES: Readonly<Record<string, string>> = { sms: 'SMS', whatsapp: 'WhatsApp', email: 'Email' };
/** A channel as people write it: `SMS`, `WhatsApp`, `Email`. */
export const channelName = (channel: string): string => CHANNEL_NAMES[channel] ?? channel;

const integer = new Intl.NumberFormat();
export const formatCount = (n: number): string => integer.format(n);

const money = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 4 });
export const formatMoney = (n: number): string => money.format(n);

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 2 });
export const formatRate = (n: number): string => percent.format(n);

/** A local `datetime-local` input value as a UTC ISO string (undefined when empty). */
export function isoFromLocalInput(value: string): string | undefined {
  if (value === '') return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/** A date input (`2026-11-23`, the browser's day) as the UTC instant of its local midnight. */
export function isoFromLocalDate(value: string, endOfDay = false): string | undefined {
  if (value === '') return undefined;
  const date = new Date(`${value}T${endOfDay ? '23:59:59.999' : '00:00:00'}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
