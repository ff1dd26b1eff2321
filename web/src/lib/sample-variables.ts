/** Sample variables as the editor takes them: one `name=value` a line; blank lines and `#` comments skipped. */
export function parseSampleVariables(text: string): { variables: Record<string, string>; error?: string } {
  const variables: Record<string, string> = {};
  const lines = text.split('\n');
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const equals = line.indexOf('=');
    if (equals <= 0) return { variables, error: `Line ${index + 1}: write name=value` };
    variables[line.slice(0, equals).trim()] = line.slice(equals + 1).trim();
  }
  return { variables };
}
