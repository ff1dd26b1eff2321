// The variables a stored email template asks for, read with herald's own template parser
// (the one POST /v1/email renders with), so the compose form offers exactly those fields.
import { parseTemplate, type Program } from '@herald/domain/template-parser.ts';
import { DEFAULT_LIMITS } from '@herald/domain/request-limits.ts';

const LIMITS = {
  maxLength: DEFAULT_LIMITS.maxTemplateLength,
  maxPlaceholders: DEFAULT_LIMITS.maxTemplatePlaceholders,
  maxDepth: DEFAULT_LIMITS.maxTemplateDepth,
};

function collect(program: Program | undefined, into: Set<string>): void {
  for (const node of program?.body ?? []) {
    if (node.type === 'variable') into.add(node.name);
    else if (node.type === 'block') {
      into.add(node.name);
      collect(node.program, into);
      collect(node.inverse, into);
    }
  }
}

/** Each variable named in the sources, in the order first met; a source herald would refuse adds none. */
export function templateVariables(sources: readonly (string | null | undefined)[]): string[] {
  const names = new Set<string>();
  for (const source of sources) {
    if (source === null || source === undefined || source === '') continue;
    const parsed = parseTemplate(source, LIMITS);
    if (parsed.ok) collect(parsed.value.root, names);
  }
  return [...names];
}
