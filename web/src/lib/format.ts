// Display helpers: times in the browser's zone (UTC on hover), numbers and dates in the
// application's language (Intl), rebuilt when the language changes.
import { currentLanguage, type Language } from '../i18n/i18n.ts';

function perLanguage<T>(make: (language: Language) => T): () => T {
  const made = new Map<Language, T>();
  return () => {
    const language = currentLanguage();
    let value = made.get(language);
    if (value === undefined) made.set(language, value = make(language));
    return value;
  };
}

const dateTime = perLanguage((l) => new Intl.DateTimeFormat(l, { dateStyle: 'medium', timeStyle: 'medium' }));
const dateOnly = perLanguage((l) => new Intl.DateTimeFormat(l, { dateStyle: 'medium' }));

export function localTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime().format(date);
}

export function localDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateOnly().format(date);
}

/** `2026-11-23 10:04:05 UTC`: what the hover title shows. */
export function utcTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

const CHANNEL_NAMES: Readonly<Record<string, string>> = { sms: 'SMS', whatsapp: 'WhatsApp', email: 'Email' };
/** A channel as people write it: `SMS`, `WhatsApp`, `Email`. */
export const channelName = (channel: string): string => CHANNEL_NAMES[channel] ?? channel;

const integer = perLanguage((l) => new Intl.NumberFormat(l));
export const formatCount = (n: number): string => integer().format(n);

const money = perLanguage((l) => new Intl.NumberFormat(l, { minimumFractionDigits: 2, maximumFractionDigits: 4 }));
export const formatMoney = (n: number): string => money().format(n);

const percent = perLanguage((l) => new Intl.NumberFormat(l, { style: 'percent', maximumFractionDigits: 2 }));
export const formatRate = (n: number): string => percent().format(n);

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

/**
 * A recipient as shown everywhere: a phone number (SMS or WhatsApp, stored with or without
 * `+`) in E.164 with its `+`; anything else (an email address, a short code) as it is.
 */
export function formatRecipient(channel: string, recipient: string): string {
  if (channel !== 'sms' && channel !== 'whatsapp') return recipient;
  const digits = recipient.replace(/^\+/, '');
  // Short codes (3 to 8 digits) and alphanumeric senders have no country code to mark.
  return /^[0-9]{9,15}$/.test(digits) ? `+${digits}` : recipient;
}
