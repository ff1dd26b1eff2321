import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';

// Checks real answers against the OpenAPI document: the operation must exist, the
// status must be one it lists, and a JSON body must match that status's schema.

type Doc = { paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>> };

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const pointer = (...parts: string[]): string => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

export interface AnswerChecker {
  /** Problems with this answer; empty when the document describes it. */
  check(method: string, url: string, res: LightMyRequestResponse): string[];
  /** `METHOD path` of every operation an answer was checked against. */
  readonly covered: Set<string>;
}

export function answerChecker(doc: Doc): AnswerChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema(doc as object, 'doc');
  const templates = Object.keys(doc.paths).map((path) => ({
    path, params: (path.match(/\{/g) ?? []).length,
    regex: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }));
  const covered = new Set<string>();
  return {
    covered,
    check(method, url, res) {
      const bare = url.split('?')[0] ?? url;
      const verb = method.toLowerCase();
      const template = templates.filter((t) => t.regex.test(bare) && doc.paths[t.path]?.[verb] !== undefined).sort((a, b) => a.params - b.params)[0];
      if (template === undefined) return [`${method} ${bare}: no operation in the document`];
      covered.add(`${method.toUpperCase()} ${template.path}`);
      const status = String(res.statusCode);
      const responses = doc.paths[template.path]?.[verb]?.responses ?? {};
      const key = status in responses ? status : `${status[0]}XX` in responses ? `${status[0]}XX` : 'default' in responses ? 'default' : undefined;
      const where = `${method.toUpperCase()} ${template.path} ${status}`;
      if (key === undefined) return [`${where}: status not in the document (${Object.keys(responses).join(', ')})`];
      const type = String(res.headers['content-type'] ?? '');
      if (!type.startsWith('application/json') || res.body === '') return [];
      const content = responses[key]?.content?.['application/json'];
      if (content === undefined) return [`${where}: a JSON body where the document declares none`];
      const validate = ajv.getSchema(`doc#/${pointer('paths', template.path, verb, 'responses', key, 'content', 'application/json', 'schema')}`);
      if (validate === undefined) return [`${where}: no schema`];
      if (validate(JSON.parse(res.body))) return [];
      return [`${where}: ${ajv.errorsText(validate.errors)} in ${res.body.slice(0, 300)}`];
    },
  };
}
