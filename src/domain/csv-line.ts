/** One CSV line (RFC 4180): fields with a comma, quote or line break are quoted, quotes doubled. */
export function csvLine(fields: readonly (string | number | null)[]): string {
  return fields.map((field) => {
    const text = field === null ? '' : String(field);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  }).join(',');
}
