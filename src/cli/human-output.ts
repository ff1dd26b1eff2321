import type { AccountBody, AccountDetails, IssuedKeyBody, LedgerEntryView } from '../app/account-view.ts';
import type { EmailTemplateSummary } from '../app/email-templates.ts';
import type { WhatsappTemplateView } from '../app/list-whatsapp-templates.ts';
import type { SenderDomainDetails } from '../app/sender-domains.ts';
import type { UserBody } from '../app/user-view.ts';
import type { SenderDomainVerification } from '../app/verify-sender-domain.ts';

// What the CLI prints without --json: aligned "label  value" lines for a person.

function lines(pairs: readonly (readonly [string, string])[], indent = '  '): string[] {
  const width = Math.max(...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${indent}${label.padEnd(width)}  ${value}`);
}

const onOff = (flag: boolean): string => (flag ? 'on' : 'off');

export function accountText(account: AccountBody): string[] {
  return [
    `Account ${account.id} (${account.name})`,
    ...lines([
      ['active', account.active ? 'yes' : 'no'],
      ['messages left', String(account.messagesLeft)],
      ['balance', String(account.balance)],
      ['whatsapp price', String(account.whatsappPrice)],
      ['rate limit', `${account.rateLimitPerSecond}/s`],
      ['ip allow-list', account.ipAllowList.length === 0 ? '(any address)' : account.ipAllowList.join(', ')],
      ['allow-list binds', account.allowListAppliesTo === 'all' ? 'API keys and sessions (all)' : 'API keys only (keys)'],
      ['services', `email ${onOff(account.services.email)}, sms ${onOff(account.services.sms)}, whatsapp ${onOff(account.services.whatsapp)}`],
      ['webhook url', account.webhookUrl ?? '(none)'],
      ['sms senders', account.smsSenders.length === 0 ? '(the service\'s own)' : account.smsSenders.map((s, i) => (i === 0 ? `${s} (default)` : s)).join(', ')],
      ['created', account.createdAt],
      ['updated', account.updatedAt],
    ]),
  ];
}

export function accountDetailsText(details: AccountDetails): string[] {
  const keys = details.apiKeys.map((k) => {
    const state = k.revokedAt !== null ? `revoked ${k.revokedAt}` : k.expiresAt !== null ? `expires ${k.expiresAt}` : 'active';
    return `  ${k.id}  ${k.scopes.join(',')}  ${state}${k.mode === 'test' ? '  test' : ''}`;
  });
  return [
    ...accountText(details),
    'API keys:',
    ...(keys.length === 0 ? ['  (none)'] : keys),
    'Sender domains:',
    ...(details.domains.length === 0 ? ['  (none)'] : details.domains.map((d) => `  ${d.domain}${d.verified ? ' (verified)' : ' (not verified)'}`)),
  ];
}

export function issuedKeyText(key: IssuedKeyBody): string[] {
  return [
    'API key (shown this once; store it now):',
    `  ${key.apiKey}`,
    ...lines([
      ['key id', key.id],
      ['scopes', key.scopes.join(', ')],
      ['expires', key.expiresAt ?? 'never'],
      ['mode', key.mode],
    ]),
  ];
}

/** Rows of a table: columns padded to their widest cell, two spaces apart. */
function table(rows: readonly (readonly string[])[], indent = '  '): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  return rows.map((row) => `${indent}${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')}`.trimEnd());
}

const domainState = (domain: SenderDomainDetails): string =>
  domain.verified ? `verified${domain.verifiedAt === null ? '' : ` ${domain.verifiedAt}`}` : 'not verified: email from it is refused until it is';

export function domainLine(domain: SenderDomainDetails): string {
  return `${domain.domain} (${domainState(domain)})`;
}

/** A domain and the records to publish, one per line, as a DNS host asks for them. */
export function domainDetailsText(domain: SenderDomainDetails): string[] {
  return [
    `Sender domain ${domainLine(domain)}`,
    'DNS records to publish:',
    ...table([['type', 'name', 'value'], ...domain.records.map((r) => [r.type, r.name, r.value])]),
    ...domain.notes.map((note) => `Note: ${note.text}`),
  ];
}

export function verificationText(result: SenderDomainVerification): string[] {
  return [
    domainLine(result),
    ...table(result.checks.map((c) => [
      c.record,
      `${c.error ?? (c.ok ? 'matches' : c.found ? 'found, but not the value to publish' : 'not found')}${c.purpose === 'spf' || c.purpose === 'dmarc' ? ` (${c.purpose}, advisory)` : ''}`,
    ])),
  ];
}

export interface AccountListEntry {
  readonly id: string;
  readonly name: string;
  readonly active: boolean;
  readonly messagesLeft: number;
  readonly balance: number;
  readonly users: number;
}

export function accountListText(accounts: readonly AccountListEntry[], more: boolean): string[] {
  if (accounts.length === 0) return ['No accounts.'];
  return [
    ...table([['id', 'name', 'active', 'messages', 'balance', 'users'], ...accounts.map((a) => [
      a.id, a.name, a.active ? 'yes' : 'no', String(a.messagesLeft), String(a.balance), String(a.users),
    ])], ''),
    ...(more ? ['(more: raise --limit or narrow --name)'] : []),
  ];
}

export interface KeyListEntry {
  readonly id: string;
  readonly name: string;
  readonly scopes: readonly string[];
  readonly expiresAt: string | null;
  readonly revokedAt: string | null;
  readonly lastUsedAt: string | null;
}

export function keyListText(keys: readonly KeyListEntry[]): string[] {
  if (keys.length === 0) return ['No API keys.'];
  const state = (k: KeyListEntry): string => (k.revokedAt !== null ? `revoked ${k.revokedAt}` : k.expiresAt !== null ? `expires ${k.expiresAt}` : 'active');
  return table([['id', 'name', 'scopes', 'state', 'last used'], ...keys.map((k) => [
    k.id, k.name === '' ? '-' : k.name, k.scopes.join(','), state(k), k.lastUsedAt ?? 'never',
  ])], '');
}

export function emailTemplateListText(templates: readonly EmailTemplateSummary[]): string[] {
  return ['Email templates:', ...(templates.length === 0 ? ['  (none)'] : table(templates.map((t) => [t.template_id, t.name, t.subject ?? ''])))];
}

export function whatsappTemplateListText(templates: readonly WhatsappTemplateView[]): string[] {
  return ['WhatsApp templates:', ...(templates.length === 0 ? ['  (none)'] : table(templates.map((t) => [
    t.templateId, t.name, t.language, t.status, `${t.paramCount} parameter${t.paramCount === 1 ? '' : 's'}`,
  ])))];
}

export function userListText(users: readonly UserBody[]): string[] {
  if (users.length === 0) return ['No users.'];
  return table([['id', 'email', 'role', 'status', 'last sign-in'], ...users.map((u) => [u.user_id, u.email, u.role, u.status, u.last_sign_in_at ?? 'never'])], '');
}

export function ledgerText(entries: readonly LedgerEntryView[]): string[] {
  if (entries.length === 0) return ['No ledger entries.'];
  return entries.map((e) => `${e.at}  ${e.reason.padEnd(13)}  messages ${signed(e.messagesDelta)}  balance ${signed(e.balanceDelta)}`);
}

const signed = (n: number): string => (n > 0 ? `+${n}` : String(n));

export function templateText(template: WhatsappTemplateView): string[] {
  return [
    `WhatsApp template ${template.templateId} added`,
    ...lines([
      ['name', template.name],
      ['language', template.language],
      ['status', template.status],
      ['parameters', String(template.paramCount)],
    ]),
  ];
}
