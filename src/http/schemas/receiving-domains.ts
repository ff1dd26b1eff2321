// Receiving domains (/v1/receiving-domains, docs/inbound-email.md): the bodies Fastify
// checks, and the answers. app/receiving-domains.ts checks what a schema cannot say
// (a forward's address, rules that name one address twice).
import { Type, type Static } from '@sinclair/typebox';
import { MAX_RECEIVING_RULES, RULE_ACTIONS } from '../../domain/receiving-domain.ts';

export const NewReceivingDomainBody = Type.Object({
  domain: Type.String({ maxLength: 253, description: 'Host name with a dot; stored lower-cased' }),
}, { additionalProperties: false });
export type NewReceivingDomainBody = Static<typeof NewReceivingDomainBody>;

const Rule = Type.Object({
  address: Type.String({
    minLength: 1, maxLength: 64, pattern: '^(\\*|[^@\\s]+)$',
    description: 'A local part (`support`, matched without regard to case), or `*` for every address no other rule names',
  }),
  action: Type.Union(RULE_ACTIONS.map((action) => Type.Literal(action)), {
    description: '`webhook`: stored and posted as `email.received`; `forward`: sent on to `forward_to` as one billed email; `refuse`: 550 5.7.1 at RCPT TO',
  }),
  forward_to: Type.Optional(Type.String({ maxLength: 320, description: 'With `forward` only: the address it is sent on to' })),
}, { additionalProperties: false });

export const ReceivingRulesBody = Type.Object({
  rules: Type.Array(Rule, { maxItems: MAX_RECEIVING_RULES, description: 'The whole list, replacing the one before; an address no rule names (and no `*`) gets `webhook`' }),
}, { additionalProperties: false });
export type ReceivingRulesBody = Static<typeof ReceivingRulesBody>;

const MxRecord = Type.Object({
  type: Type.Literal('MX'),
  name: Type.String(),
  value: Type.String({ description: 'Preference and host: herald\'s mail host (the host of HERALD_PUBLIC_URL)' }),
  purpose: Type.Literal('receiving'),
});

export const ReceivingDomain = Type.Object({
  id: Type.String({ format: 'uuid' }),
  domain: Type.String({ description: 'Lower-case host name' }),
  verified: Type.Boolean({ description: 'false: mail to the domain is refused (550) until its MX points at herald and it is verified' }),
  verified_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  records: Type.Array(MxRecord, { description: 'The MX record to publish' }),
  rules: Type.Array(Rule),
  created_at: Type.String({ format: 'date-time' }),
});

export const ReceivingDomainList = Type.Object({ data: Type.Array(ReceivingDomain, { description: 'By name' }) });

export const ReceivingDomainVerification = Type.Composite([ReceivingDomain, Type.Object({
  checks: Type.Array(Type.Object({
    record: Type.String({ description: 'The name whose MX was looked up' }),
    found: Type.Boolean({ description: 'It has MX records' }),
    ok: Type.Boolean({ description: 'One of them names herald\'s mail host' }),
    error: Type.Optional(Type.String({ description: 'The look-up failed (time-out, SERVFAIL …); try again later' })),
  }), { description: 'The MX look-up; the domain verifies when it is `ok`, and stays verified' }),
})]);
