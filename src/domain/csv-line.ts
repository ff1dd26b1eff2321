// The one writer of CSV lines for every export herald answers with (text/csv): a
// spreadsheet opening the file must see text, never a formula, so a text cell that a
// spreadsheet would evaluate is neutralised here, once, for every export.

/**
 * First characters that make a spreadsheet read a cell as a formula (OWASP "CSV
 * injection"): `=`, `+`, `-`, `@`, and the tab and carriage return some applications
 * skip before looking at the next one.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A text cell as a spreadsheet must read it: one starting like a formula gets a single
 * quote in front (`=1+1` → `'=1+1`), which spreadsheets show as text. Numbers are data,
 * written as they are (a negative number stays a number).
 */
export function neutralisedCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * One CSV line (RFC 4180): text cells neutralised (neutralisedCell), then fields with
 * a comma, quote or line break quoted, quotes doubled.
 */
export function csvLine(fields: readonly (string | number | null)[]): string {
  return fields.map((field) => {
    const text = field === null ? '' : typeof field === 'number' ? String(field) : neutralisedCell(field);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  }).join(',');
}
