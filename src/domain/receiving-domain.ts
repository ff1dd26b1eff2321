// Receiving domains: domains an account takes email at (docs/inbound-email.md). Pure:
// the MX record to publish, the check of what DNS answered, and which rule of the
// domain an address falls under. Look-ups and storage live in app/ and store/.

export const RULE_ACTIONS = ['webhook', 'forward', 'refuse'] as const;
export type RuleAction = (typeof RULE_ACTIONS)[number];

/** One rule: mail to `address` (a local part, or `*` for every other) is posted, forwarded or refused. */
export interface ReceivingRule {
  readonly address: string;
  readonly action: RuleAction;
  /** Where `forward` sends it; absent for the other actions. */
  readonly forwardTo?: string;
}

/** Rules a domain may have: each is read on every RCPT TO, so the list stays short. */
export const MAX_RECEIVING_RULES = 100;

/** What an address gets when no rule names it and there is no `*` rule. */
export const DEFAULT_RULE: ReceivingRule = { address: '*', action: 'webhook' };

/** The MX record that sends a domain's mail to herald. */
export interface ReceivingRecord {
  readonly type: 'MX';
  readonly name: string;
  readonly value: string;
  readonly purpose: 'receiving';
}

/** `<domain> MX 10 <herald's mail host>`: the host the bounce domain's MX names too. */
export const receivingRecord = (domain: string, mailHost: string): ReceivingRecord =>
  ({ type: 'MX', name: domain, value: `10 ${mailHost}`, purpose: 'receiving' });

const host = (name: string): string => name.toLowerCase().replace(/\.$/, '');

/** True when one of the domain's MX records names herald's mail host (case and a trailing dot aside). */
export const mxPointsAt = (exchanges: readonly string[], mailHost: string): boolean =>
  exchanges.some((exchange) => host(exchange) === host(mailHost));

/** The rule for a local part: the one naming it (case aside), else `*`, else the default (webhook). */
export function ruleFor(rules: readonly ReceivingRule[], localPart: string): ReceivingRule {
  const local = localPart.toLowerCase();
  return rules.find((rule) => rule.address.toLowerCase() === local) ?? rules.find((rule) => rule.address === '*') ?? DEFAULT_RULE;
}

/** An address split at its last `@`, the domain lower-cased; null without one. */
export function splitAddress(address: string): { readonly local: string; readonly domain: string } | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;
  return { local: address.slice(0, at), domain: address.slice(at + 1).toLowerCase() };
}
