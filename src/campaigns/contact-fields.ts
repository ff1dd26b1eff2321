import { Buffer } from 'node:buffer';
import { parseAddress } from '../domain/email-address.ts';
import { isJsonObject, type JsonObject } from '../domain/json-object.ts';

// What a contact is made of, checked the same way wherever it comes from (POST and
// PATCH /v1/contacts, an import's rows): the address, the name, the attributes.

/** Longest contact name kept. */
export const CONTACT_NAME_MAX = 200;
/** Largest attributes object, as JSON (UTF-8 bytes). */
export const ATTRIBUTES_MAX_BYTES = 16 * 1024;
/** Deepest nesting below `attributes` (objects and arrays): `attributes.a.b.c` is the longest path. */
export const ATTRIBUTES_MAX_DEPTH = 3;
/**
 * An attribute name: letters, digits, `_`, `-` and single inner spaces, 1–64 characters.
 * No dots: the segment filter names nested attributes with dots (`attributes.address.city`).
 */
export const ATTRIBUTE_KEY = /^(?=.{1,64}$)[\p{L}\p{N}_-]+(?: [\p{L}\p{N}_-]+)*$/u;

export type Attributes = Readonly<Record<string, unknown>>;

/** One contact as a request or an import row gives it (the address already checked and lower-cased). */
export interface ContactInput {
  readonly email: string;
  /** Undefined: keep the stored name. */
  readonly name?: string | null;
  /** A merge patch (mergeAttributes). */
  readonly attributes?: JsonObject;
}

/** The stored form of an address (lower-cased), or null when it is not one. */
export function contactEmail(input: unknown): string | null {
  if (typeof input !== 'string') return null;
  const address = parseAddress(input);
  return address === null ? null : address.toLowerCase();
}

/** A name as stored: trimmed, an empty one as null. */
export function contactName(input: string | null): string | null {
  const trimmed = input?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}

/** Why `attributes` cannot be stored, or undefined when it can. */
export function attributesProblem(attributes: unknown): string | undefined {
  if (!isJsonObject(attributes)) return 'attributes must be an object';
  const bad = badKey(attributes, 0);
  if (bad !== undefined) return bad;
  if (Buffer.byteLength(JSON.stringify(attributes), 'utf8') > ATTRIBUTES_MAX_BYTES) return `attributes must be at most ${ATTRIBUTES_MAX_BYTES} bytes as JSON`;
  return undefined;
}

// The root object sits at depth 0; a container (object or array) may sit at depth 1
// or 2, so a value's path has at most ATTRIBUTES_MAX_DEPTH names.
function badKey(value: unknown, depth: number): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth >= ATTRIBUTES_MAX_DEPTH) return `attributes may nest at most ${ATTRIBUTES_MAX_DEPTH} levels deep`;
  const entries = Array.isArray(value) ? value.map((item): [string | undefined, unknown] => [undefined, item]) : Object.entries(value);
  for (const [key, inner] of entries) {
    if (key !== undefined && !ATTRIBUTE_KEY.test(key)) return `attribute name ${JSON.stringify(key.slice(0, 80))} must be 1 to 64 letters, digits, spaces, - or _`;
    const bad = badKey(inner, depth + 1);
    if (bad !== undefined) return bad;
  }
  return undefined;
}

/**
 * RFC 7396 JSON merge patch: each key of `patch` replaces the stored one, `null`
 * removes it, and objects merge key by key. Used by POST (upsert) and PATCH alike, so
 * a sign-up form that sends `city` never wipes `plan`.
 */
export function mergeAttributes(target: Attributes, patch: JsonObject): Attributes {
  const merged: Record<string, unknown> = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else if (isJsonObject(value)) merged[key] = mergeAttributes(isJsonObject(merged[key]) ? merged[key] : {}, value);
    else merged[key] = value;
  }
  return merged;
}

// A plain decimal without leading zeros (so "01234" stays a postal code) and short
// enough to stay exact as a double.
const CSV_NUMBER = /^-?(0|[1-9][0-9]{0,14})(\.[0-9]{1,15})?$/;

/** A CSV cell as an attribute value: plain decimals become numbers, everything else stays text. */
export function csvCellValue(cell: string): string | number {
  return CSV_NUMBER.test(cell) ? Number(cell) : cell;
}
