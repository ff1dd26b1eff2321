import { listAccounts } from '../app/account-list.ts';
import { accountBody, issuedKeyBody, viewAccount, viewLedger } from '../app/account-view.ts';
import { addSenderDomainAsOperator } from '../app/add-sender-domain.ts';
import { createAccount } from '../app/create-account.ts';
import type { SenderDomainDetails } from '../app/sender-domains.ts';
import { updateAccount } from '../app/update-account.ts';
import { ALLOW_LIST_APPLIES_TO } from '../domain/account.ts';
import { parseAccountUpdate, parseNewAccount, parseNewSenderDomain } from '../domain/admin-input.ts';
import { formatMoney } from '../domain/money.ts';
import { RejectionError } from '../domain/result.ts';
import { booleanFlag, choiceFlag, compact, listFlag, printed, printedAs, storeCommand, str, wholeNumberFlag } from './command-kit.ts';
import * as human from './human-output.ts';

// `accounts …`: open, find, show, change and audit the accounts.

const ACCOUNT_FLAGS = {
  name: 'name', messagesLeft: 'messages', balance: 'balance', whatsappPrice: 'whatsapp-price', rateLimitPerSecond: 'rate-limit', domain: 'domain',
  smsSenders: 'sms-senders',
} as const;

const SMS_SENDERS_HELP = '--sms-senders takes comma-separated long numbers (+ and digits), short codes and alphanumeric sender ids, the first the default ("" for none)';

export const accountCreate = storeCommand({
  usage: 'accounts create --name NAME [--messages N] [--balance X] [--whatsapp-price X] [--rate-limit N] [--sms-senders SENDERS] [--domain DOMAIN]... [--json]',
  summary: `Open an account (names are unique without regard to case) with a first API key of every scope; ${SMS_SENDERS_HELP}`,
  options: {
    name: { type: 'string' }, messages: { type: 'string' }, balance: { type: 'string' }, 'whatsapp-price': { type: 'string' },
    'rate-limit': { type: 'string' }, 'sms-senders': { type: 'string' }, domain: { type: 'string', multiple: true },
  },
  flagOf: ACCOUNT_FLAGS,
  async run(deps, _args, values) {
    const input = parseNewAccount(compact({
      name: values.name, messagesLeft: wholeNumberFlag(values, 'messages'), balance: values.balance,
      whatsappPrice: values['whatsapp-price'], rateLimitPerSecond: wholeNumberFlag(values, 'rate-limit'), smsSenders: listFlag(values, 'sms-senders'),
    }));
    if (!input.ok) return input;
    // Domains are checked before the account exists, so a typo leaves nothing half made.
    const domains = new Map<string, { domain: string; verified: boolean }>();
    for (const domain of Array.isArray(values.domain) ? values.domain : []) {
      const parsed = parseNewSenderDomain({ domain, verified: true });
      if (!parsed.ok) return parsed;
      domains.set(parsed.value.domain, parsed.value);
    }
    let created;
    try {
      created = await createAccount(deps, input.value);
    } catch (error) {
      if (error instanceof RejectionError) return { ok: false, rejection: error.rejection };
      throw error;
    }
    const added: SenderDomainDetails[] = [];
    for (const domain of domains.values()) {
      const result = await addSenderDomainAsOperator(deps, created.account.id, domain);
      if (!result.ok) return result;
      added.push(result.value);
    }
    const body = accountBody(created.account);
    const { id, apiKey, scopes } = created.apiKey;
    return printed({ account: body, apiKey: { id, apiKey, scopes }, domains: added }, [
      ...human.accountText(body),
      ...human.issuedKeyText(issuedKeyBody(created.apiKey)),
      ...added.flatMap(human.domainDetailsText),
    ]);
  },
});

export const accountList = storeCommand({
  usage: 'accounts list [--name TEXT] [--limit N] [--json]',
  summary: 'The accounts, newest first; --name keeps those whose name contains TEXT (or whose id is TEXT)',
  options: { name: { type: 'string' }, limit: { type: 'string' } },
  flagOf: { q: 'name', limit: 'limit' },
  async run(deps, _args, values) {
    const page = await listAccounts(deps, compact({ q: str(values.name), limit: values.limit }));
    if (!page.ok) return page;
    const accounts = page.value.accounts.map(({ account, users }) => ({
      id: account.id, name: account.name, active: account.active, messagesLeft: account.messagesLeft, balance: formatMoney(account.balance),
      users, createdAt: new Date(account.createdAt).toISOString(),
    }));
    return printed({ accounts, nextCursor: page.value.nextCursor }, human.accountListText(accounts, page.value.nextCursor !== null));
  },
});

export const accountShow = storeCommand({
  usage: 'accounts show ACCOUNT_ID [--json]',
  summary: 'An account, its API keys (by id, never the keys) and its sender domains',
  positionals: ['ACCOUNT_ID'],
  async run(deps, [id = '']) {
    return printedAs(await viewAccount(deps, id), human.accountDetailsText);
  },
});

export const accountUpdate = storeCommand({
  usage: 'accounts update ACCOUNT_ID [--name NAME] [--messages N | --add-messages N] [--balance X | --add-balance X] [--whatsapp-price X] [--active true|false] [--rate-limit N] '
    + '[--allow-list ENTRIES] [--allow-list-applies-to keys|all] [--sms-senders SENDERS] [--json]',
  summary: 'Change an account; messages and money move through the ledger. --allow-list takes comma-separated addresses and CIDR ranges ("" for any address); '
    + `--allow-list-applies-to keys frees the web application's sessions from the list; ${SMS_SENDERS_HELP}`,
  positionals: ['ACCOUNT_ID'],
  options: {
    name: { type: 'string' }, messages: { type: 'string' }, 'add-messages': { type: 'string' }, balance: { type: 'string' },
    'add-balance': { type: 'string' }, 'whatsapp-price': { type: 'string' }, active: { type: 'string' }, 'rate-limit': { type: 'string' },
    'allow-list': { type: 'string' }, 'allow-list-applies-to': { type: 'string' }, 'sms-senders': { type: 'string' },
  },
  flagOf: {
    ...ACCOUNT_FLAGS, addMessages: 'add-messages', addBalance: 'add-balance', active: 'active', ipAllowList: 'allow-list', allowListAppliesTo: 'allow-list-applies-to',
  },
  async run(deps, [id = ''], values) {
    const input = parseAccountUpdate(compact({
      name: values.name, messagesLeft: wholeNumberFlag(values, 'messages'), addMessages: wholeNumberFlag(values, 'add-messages'),
      balance: values.balance, addBalance: values['add-balance'], whatsappPrice: values['whatsapp-price'],
      active: booleanFlag(values, 'active'), rateLimitPerSecond: wholeNumberFlag(values, 'rate-limit'),
      ipAllowList: listFlag(values, 'allow-list'), allowListAppliesTo: choiceFlag(values, 'allow-list-applies-to', ALLOW_LIST_APPLIES_TO),
      smsSenders: listFlag(values, 'sms-senders'),
    }));
    if (!input.ok) return input;
    const updated = await updateAccount(deps, id, input.value);
    if (!updated.ok) return updated;
    const body = accountBody(updated.value);
    return printed(body, human.accountText(body));
  },
});

export const accountLedger = storeCommand({
  usage: 'accounts ledger ACCOUNT_ID [--json]',
  summary: 'Every change to an account\'s messages and money, oldest first',
  positionals: ['ACCOUNT_ID'],
  async run(deps, [id = '']) {
    return printedAs(await viewLedger(deps, id), (ledger) => human.ledgerText(ledger.entries));
  },
});
