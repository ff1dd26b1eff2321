import { finished } from 'node:stream/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { parse as parseCsv, type Parser } from 'csv-parse';
import { parse as parseCsvSync } from 'csv-parse/sync';
import { describeFailure } from '../domain/schema-check.ts';
import { isJsonObject } from '../domain/json-object.ts';
import { WIRE_TEXTS } from '../domain/wire-texts.ts';
import { ATTRIBUTE_KEY, attributesProblem, contactEmail, contactName, csvCellValue, CONTACT_NAME_MAX, type ContactInput } from './contact-fields.ts';
import { BrokenJsonArray, JsonElementSplitter, MAX_ELEMENT_CHARS } from './import-json-elements.ts';

// An import's rows, read from its body a chunk at a time: CSV (RFC 4180, a header row
// with `email`, optional `name`, every other column an attribute) through csv-parse,
// or a JSON array of {email, name?, attributes?} cut into elements by
// import-json-elements.ts and parsed one element at a time. Neither ever holds more
// than one chunk's rows as objects, nor any record or element past its bound (64 Ki
// characters; 100 columns; 8 levels and MAX_ELEMENT_VALUES values). A row that is not
// a contact, or over a bound, is an error of that row; a body whose structure breaks
// (an unclosed quote, bad JSON) ends the reading with MalformedImport, since nothing
// after it can be trusted.

export const IMPORT_FORMATS = ['csv', 'json'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Most data rows an import takes. */
export const MAX_IMPORT_ROWS = 1_000_000;
/** Most columns of a CSV import. */
export const MAX_CSV_COLUMNS = 100;
/** Longest CSV record, in characters (a JSON element has the same bound). */
const MAX_RECORD_CHARS = MAX_ELEMENT_CHARS;
/** Most values (array items and object members, at any depth) in one JSON element. */
export const MAX_ELEMENT_VALUES = 10_000;
/**
 * The stored body holds U+FFFD where the upload had bytes that are not UTF-8 (and the
 * Content-Type named no charset): such a row is refused, never stored as U+FFFD.
 */
export const NOT_UTF8 = 'the row is not UTF-8 text (it holds bytes of another encoding, or U+FFFD): send UTF-8, or name the charset in Content-Type';

/** A data row (1 = the first after the CSV header, or the array's first element) and what it gives. */
export type ImportRow = { readonly row: number; readonly input: ContactInput } | { readonly row: number; readonly error: string };

/** The body's structure is broken at some point: the rows before it were read. */
export class MalformedImport extends Error {
  override name = 'MalformedImport';
}

export interface CsvHeader {
  readonly width: number;
  readonly email: number;
  readonly name: number | undefined;
  readonly attributes: readonly { readonly index: number; readonly name: string }[];
}

/** The header's columns, or why they cannot be imported (a detail, or the wire code for a missing email column). */
export function csvHeader(cells: readonly string[]): { ok: true; header: CsvHeader } | { ok: false; problem: 'no-email' | string } {
  if (cells.length > MAX_CSV_COLUMNS) return { ok: false, problem: `the CSV header has more than ${MAX_CSV_COLUMNS} columns` };
  const names = cells.map((c) => c.trim());
  const email = names.findIndex((n) => n.toLowerCase() === 'email');
  if (email < 0) return { ok: false, problem: 'no-email' };
  const nameAt = names.findIndex((n) => n.toLowerCase() === 'name');
  const attributes: { index: number; name: string }[] = [];
  const seen = new Set<string>();
  for (const [index, name] of names.entries()) {
    if (seen.has(name.toLowerCase())) return { ok: false, problem: `the CSV header names column ${JSON.stringify(name)} twice` };
    seen.add(name.toLowerCase());
    if (index === email || index === nameAt) continue;
    if (!ATTRIBUTE_KEY.test(name)) return { ok: false, problem: `CSV column ${index + 1} (${JSON.stringify(name.slice(0, 80))}) is not an attribute name: use 1 to 64 letters, digits, spaces, - or _` };
    attributes.push({ index, name });
  }
  return { ok: true, header: { width: cells.length, email, name: nameAt < 0 ? undefined : nameAt, attributes } };
}

/** The header record of a CSV body's first chunk (`whole`: the chunk is the whole body); undefined when there is none. */
export function firstCsvRecord(firstChunk: string, whole: boolean): string[] | undefined {
  // Only a header that ends inside the chunk is read here (a header over a chunk long is no header).
  const text = whole ? firstChunk : firstChunk.slice(0, Math.max(0, firstChunk.lastIndexOf('\n')));
  try {
    const [record] = parseCsvSync(text, { bom: true, to: 1, skip_empty_lines: true, relax_column_count: true }) as string[][];
    return record;
  } catch {
    return undefined;
  }
}

/** Whether a JSON body starts an array (after a byte-order mark and white space). */
export function startsJsonArray(firstChunk: string): boolean {
  return /^\uFEFF?\s*\[/.test(firstChunk);
}

function csvRow(row: number, cells: readonly string[], header: CsvHeader): ImportRow {
  // RFC 4180: every record has the header's number of fields, no more and no fewer.
  if (cells.length !== header.width) return { row, error: `the row has ${cells.length} fields, the header ${header.width}` };
  if (cells.some((cell) => cell.includes('\uFFFD'))) return { row, error: NOT_UTF8 };
  const given = (cells[header.email] ?? '').trim();
  if (given === '') return { row, error: WIRE_TEXTS.suppressionEmailMissing };
  const email = contactEmail(given);
  if (email === null) return { row, error: WIRE_TEXTS.suppressionEmailWrongStructure };
  const nameCell = header.name === undefined ? '' : (cells[header.name] ?? '').trim();
  if (nameCell.length > CONTACT_NAME_MAX) return { row, error: `name must be at most ${CONTACT_NAME_MAX} characters` };
  const attributes: Record<string, string | number> = {};
  for (const { index, name } of header.attributes) {
    const cell = cells[index] ?? '';
    // An empty cell says nothing: the stored attribute stays.
    if (cell !== '') attributes[name] = csvCellValue(cell);
  }
  const problem = attributesProblem(attributes);
  if (problem !== undefined) return { row, error: problem };
  return { row, input: { email, ...(nameCell === '' ? {} : { name: nameCell }), ...(Object.keys(attributes).length === 0 ? {} : { attributes }) } };
}

const JsonRowSchema = Type.Object({
  email: Type.Unknown(),
  name: Type.Optional(Type.Union([Type.String({ maxLength: CONTACT_NAME_MAX }), Type.Null()])),
  attributes: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}, { additionalProperties: false });

function jsonRow(row: number, value: unknown): ImportRow {
  if (!isJsonObject(value)) return { row, error: 'the row must be an object with email' };
  const given = value['email'];
  if (given === undefined || given === null || (typeof given === 'string' && given.trim() === '')) return { row, error: WIRE_TEXTS.suppressionEmailMissing };
  if (!Value.Check(JsonRowSchema, value)) return { row, error: describeFailure(JsonRowSchema, value, '') };
  const email = contactEmail(given);
  if (email === null) return { row, error: WIRE_TEXTS.suppressionEmailWrongStructure };
  const { name, attributes } = value as { name?: string | null; attributes?: Record<string, unknown> };
  const problem = attributes === undefined ? undefined : attributesProblem(attributes);
  if (problem !== undefined) return { row, error: problem };
  return { row, input: { email, ...(name === undefined ? {} : { name: contactName(name) }), ...(attributes === undefined ? {} : { attributes }) } };
}

/** Characters parsed in one turn of the event loop (about 20 ms of CSV rows checked). */
const PIECE_CHARS = 64 * 1024;

/**
 * The rows of a body, a piece of a stored chunk at a time, in order. The event loop
 * turns between pieces: parsing and checking a whole MiB of rows held it for
 * half a second, a 64 Ki piece holds it for a few milliseconds.
 */
export function importRows(format: ImportFormat, chunks: AsyncIterable<string>): AsyncGenerator<ImportRow[]> {
  const text = pieces(chunks);
  return format === 'csv' ? csvRows(text) : jsonRows(text);
}

async function* pieces(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  for await (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += PIECE_CHARS) {
      yield chunk.slice(at, at + PIECE_CHARS);
      await nextTurn();
    }
  }
}

async function* csvRows(chunks: AsyncIterable<string>): AsyncGenerator<ImportRow[]> {
  let header: CsvHeader | undefined;
  let rows: ImportRow[] = [];
  let problem: string | undefined;
  let row = 0;
  // Records are taken as the parser reads them (on_record) and none is pushed on: the
  // parser never buffers rows, and a structural error comes after every row before it.
  const parser: Parser = parseCsv({
    bom: true, skip_empty_lines: true, relax_column_count: true, max_record_size: MAX_RECORD_CHARS,
    on_record: (record: string[]) => {
      if (header === undefined && problem === undefined) {
        const read = csvHeader(record);
        if (read.ok) header = read.header;
        else problem = read.problem === 'no-email' ? WIRE_TEXTS.importNoEmailColumn : read.problem;
      } else if (header !== undefined) {
        row += 1;
        rows.push(csvRow(row, record, header));
      }
      return null;
    },
  });
  parser.resume();
  const malformed = (error: unknown) => new MalformedImport(`The CSV is malformed: ${error instanceof Error ? error.message : String(error)}`);
  for await (const chunk of chunks) {
    try {
      await new Promise<void>((resolve, reject) => parser.write(chunk, (error) => (error ? reject(error) : resolve())));
    } catch (error) {
      yield rows;
      throw malformed(error);
    }
    if (problem !== undefined) throw new MalformedImport(problem);
    if (rows.length > 0) yield rows;
    rows = [];
  }
  parser.end();
  try {
    await finished(parser);
  } catch (error) {
    yield rows;
    throw malformed(error);
  }
  if (problem !== undefined) throw new MalformedImport(problem);
  if (header === undefined) throw new MalformedImport('The CSV has no header row');
  if (rows.length > 0) yield rows;
}

/** The element's row: its value parsed and checked, or why not; a text that is not JSON breaks the import. */
function elementRow(row: number, text: string): ImportRow {
  // Raw U+FFFD is what an upload's bytes that were not UTF-8 became (an escaped \ufffd is not).
  if (text.includes('\uFFFD')) return { row, error: NOT_UTF8 };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new MalformedImport(`The JSON is malformed: row ${row}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (countValues(value) > MAX_ELEMENT_VALUES) return { row, error: `the row has more than ${MAX_ELEMENT_VALUES} values` };
  return jsonRow(row, value);
}

// Depth is bounded by the splitter (MAX_ELEMENT_DEPTH), so the recursion is too.
function countValues(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 1;
  let n = 1;
  for (const inner of Array.isArray(value) ? value : Object.values(value)) n += countValues(inner);
  return n;
}

async function* jsonRows(chunks: AsyncIterable<string>): AsyncGenerator<ImportRow[]> {
  let row = 0;
  const splitter = new JsonElementSplitter();
  const broken = (error: BrokenJsonArray) => new MalformedImport(`The JSON is malformed: ${error.message}`);
  let first = true;
  for await (const chunk of chunks) {
    if (first && chunk.trim() !== '') {
      if (!startsJsonArray(chunk)) throw new MalformedImport(WIRE_TEXTS.importNotArray);
      first = false;
    }
    const rows: ImportRow[] = [];
    try {
      for (const element of splitter.write(chunk)) {
        row += 1;
        rows.push('refused' in element ? { row, error: element.refused } : elementRow(row, element.text));
      }
    } catch (error) {
      if (rows.length > 0) yield rows;
      if (error instanceof BrokenJsonArray) throw broken(error);
      throw error;
    }
    if (rows.length > 0) yield rows;
  }
  try {
    splitter.end();
  } catch (error) {
    if (error instanceof BrokenJsonArray) throw broken(error);
    throw error;
  }
}
