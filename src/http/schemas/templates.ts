// Template previews (POST /v1/email/templates/render); the stored templates' own bodies are checked by app/email-templates.ts.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.ts';
import { RENDER_SOURCE_MAX } from '../../app/render-email-template.ts';

const Source = (description?: string) => Type.String({
  maxLength: RENDER_SOURCE_MAX, errorMessage: `must be a string of at most ${RENDER_SOURCE_MAX} characters`, ...(description === undefined ? {} : { description }),
});

/**
 * Checked by Fastify, worded `<field>: <problem>` as it always was (input-validation.ts),
 * in this field order (template_id last, as the use case read it).
 */
export const RenderRequest = Type.Object({
  subject: Type.Optional(Source()),
  html: Type.Optional(Source('Required unless template_id is given')),
  text: Type.Optional(Source('Empty: generated from the HTML')),
  variables: Type.Optional(Type.Record(Type.String(), Type.String(), { errorMessage: 'must be an object of strings' })),
  template_id: Type.Optional(Type.String({ errorMessage: 'must be a string', description: 'A stored template; html and text above replace its own when given' })),
}, { additionalProperties: false });
export type RenderRequest = Static<typeof RenderRequest>;

export const RenderedEmail = Type.Object({
  subject: Type.String(),
  html: Nullable(Type.String()),
  text: Type.String({ description: 'The text part as sent: the template\'s own, or the one generated from the HTML' }),
});
export type RenderedEmail = Static<typeof RenderedEmail>;
