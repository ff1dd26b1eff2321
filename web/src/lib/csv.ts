/** One CSV line (RFC 4180): fields with a comma, quote or line break are quoted, quotes doubled. */
export function csvLine(fields: readonly (string | number | null)[]): string {
  return fields.map((field) => {
    const text = field === null ? '' : String(field);
    return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
  }).join(',');
}

/** Offers `text` as a file download. */
export function download(text: string, filename: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
