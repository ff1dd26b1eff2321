// Template previews (POST /v1/email/templates/render); the stored templates' own bodies are checked by app/email-templates.ts.
import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.ts';

export const RenderRequest = Type.Object({
  template_id: Type.Optional(Type.String({ description: 'A stored template; html and text below replace its own when given' })),
  subject: Type.Optional(Type.String()),
  html: Type.Optional(Type.String()),
  text: Type.Optional(Type.String()),
  variables: Type.Optional(Type.Record(Type.String(), Type.String())),
}, { additionalProperties: false });
export type RenderRequest = Static<typeof RenderRequest>;

export const RenderedEmail = Type.Object({
  subject: Type.String(),
  html: Nullable(Type.String()),
  text: Type.String({ description: 'The text part as sent: the template\'s own, or the one generated from the HTML' }),
});
export type RenderedEmail = Static<typeof RenderedEmail>;
