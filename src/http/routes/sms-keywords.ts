import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { getKeywordSettings, MAX_KEYWORD_TEXT, putKeywordSettings } from '../../app/keyword-settings.ts';
import { callerOf } from '../route-access.ts';
import { applicationError } from '../schemas/errors.ts';
import { sendResult } from '../wire-errors.ts';
import type { RouteDeps } from '../route-deps.ts';

// The account's SMS keywords (docs/inbound.md): its own words beside the standard
// STOP/START/HELP ones, and the texts it answers them with.

const words = Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 10 });
const text = Type.Union([Type.String({ maxLength: MAX_KEYWORD_TEXT }), Type.Null()]);
const KeywordSettingsBody = Type.Object({
  keywords: Type.Optional(Type.Object({ stop: Type.Optional(words), start: Type.Optional(words), help: Type.Optional(words) }, { additionalProperties: false })),
  texts: Type.Optional(Type.Object({ stop: Type.Optional(text), start: Type.Optional(text), help: Type.Optional(text) }, { additionalProperties: false })),
}, { additionalProperties: false });

const kinds = (item: object) => ({ type: 'object', required: ['stop', 'start', 'help'], properties: { stop: item, start: item, help: item } });
const settingsView = {
  type: 'object', required: ['standard', 'keywords', 'texts'],
  properties: { standard: kinds({ type: 'array', items: { type: 'string' } }), keywords: kinds({ type: 'array', items: { type: 'string' } }), texts: kinds({ type: 'string' }) },
} as const;

export function smsKeywordRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  app.get('/v1/sms/keywords', {
    schema: { summary: 'The opt-out (STOP), opt-in (START) and help keywords, the account\'s own beside the standard ones, and the texts that answer them', tags: ['sms'], response: { 200: settingsView } },
    config: { access: { scope: 'sms', access: 'read' } },
  }, async (request, reply) => reply.send(await getKeywordSettings(deps, callerOf(request).account.id)));

  app.put<{ Body: Static<typeof KeywordSettingsBody> }>('/v1/sms/keywords', {
    schema: {
      summary: 'Sets the account\'s own keywords (letters and digits, at most 10 a kind) and answer texts (null: the default); what is left out is cleared', tags: ['sms'],
      body: KeywordSettingsBody, response: { 200: settingsView, 400: applicationError },
    },
    config: { access: { scope: 'sms', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await putKeywordSettings(deps, callerOf(request).account.id, request.body)));
}
