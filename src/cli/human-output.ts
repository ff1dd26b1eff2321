import type { AccountBody, AccountDetails, IssuedKeyBody, LedgerEntryView } from '../app/account-view.ts';
import type { SenderDomainView } from '../app/add-sender-domain.ts';
import type { WhatsappTemplateView } from '../app/list-whatsapp-templates.ts';

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
      ['services', `email ${onOff(account.services.email)}, sms ${onOff(account.services.sms)}, whatsapp ${onOff(account.services.whatsapp)}`],
      ['webhook url', account.webhookUrl ?? '(none)'],
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

export function domainText(domain: SenderDomainView): string {
  return `Sender domain ${domain.domain} added${domain.verified ? ' (verified)' : ' (not verified: email from it is refused until it is)'}`;
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
