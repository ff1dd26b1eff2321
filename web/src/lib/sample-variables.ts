/**
 * Sample variables as the editor takes them: one `name=value` a line; blank lines and `#`
 * comments skipped. `badLine` (1-based) is the first line that is not name=value: the
 * page says so in its own language.
 */
export function parseSampleVariables(text: string): { variables: Record<string, string>; badLine?: number } {
  const variables: Record<string, string> = {};
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const equals = line.indexOf('=');
    if (equals <= 0) return { variables, badLine: index + 1 };
    variables[line.slice(0, equals).trim()] = line.slice(equals + 1).trim();
  }
  return { variables };
}
