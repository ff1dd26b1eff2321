import type { ParseArgsOptionsConfig } from 'node:util';
import { accountBody, accountExists, issuedKeyBody, viewAccount, viewLedger } from '../app/account-view.ts';
import { addSenderDomain, type SenderDomainView } from '../app/add-sender-domain.ts';
import { issueApiKey, revokeKey } from '../app/api-keys.ts';
import type { AuthDeps } from '../app/sessions.ts';
import { invitedBody } from '../app/user-view.ts';
import { inviteUser } from '../app/users.ts';
import { isRole } from '../domain/user.ts';
import { createAccount } from '../app/create-account.ts';
import { createWhatsappTemplate, NewWhatsappTemplateBody } from '../app/create-whatsapp-template.ts';
import { updateAccount } from '../app/update-account.ts';
import { checkOperatorInput, parseAccountUpdate, parseNewAccount, parseNewApiKey, parseNewSenderDomain } from '../domain/admin-input.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import { certificatesVerify } from './certificate-commands.ts';
import { settingsInEffect, settingsText } from './config-check.ts';
import { configTable, settingDocs } from './config-table.ts';
import * as human from './human-output.ts';

// Each command turns its flags into the same body the operator API takes and runs
// the same use case, so validation and its texts are the API's own.

/** What a command prints: `json` with --json, `text` otherwise. */
export interface Printed {
  readonly json: unknown;
  readonly text: string;
}

export type Values = Readonly<Record<string, string | boolean | string[] | undefined>>;

interface CommandShape {
  readonly usage: string;
  /** Names of the positional arguments, all required. */
  readonly positionals: readonly string[];
  readonly options: ParseArgsOptionsConfig;
}

/** A command over the database: main.ts opens the store for it and closes it after. */
export interface StoreCommand extends CommandShape {
  readonly needsStore: true;
  readonly run: (deps: AuthDeps, args: readonly string[], values: Values) => Promise<Result<Printed>>;
}

/** A command that never touches the database (config), so it works without one. */
interface PlainCommand extends CommandShape {
  readonly needsStore: false;
  readonly run: (args: readonly string[], values: Values) => Promise<Result<Printed>>;
}

/** A command that opens the database only if it calls `openDeps` (main.ts closes it after). */
export interface OnDemandStoreCommand extends CommandShape {
  readonly needsStore: 'on-demand';
  readonly run: (openDeps: () => Promise<AuthDeps>, args: readonly string[], values: Values) => Promise<Result<Printed>>;
}

export type Command = StoreCommand | PlainCommand | OnDemandStoreCommand;

const str = (value: Values[string]): string | undefined => (typeof value === 'string' ? value : undefined);

/** Whole numbers become numbers; anything else stays text, so the API's check names the field. */
function integerFlag(value: Values[string]): number | string | undefined {
  const raw = str(value);
  return raw !== undefined && /^-?[0-9]+$/.test(raw) ? Number(raw) : raw;
}

function booleanFlag(value: Values[string]): boolean | string | undefined {
  const raw = str(value);
  return raw === 'true' ? true : raw === 'false' ? false : raw;
}

/** Drops absent flags, so the body holds only what the operator gave. */
function compact(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

const printed = (json: unknown, text: readonly string[]): Result<Printed> => ok({ json, text: text.join('\n') + '\n' });

const accountCreate: StoreCommand = {
  usage: 'accounts create --name NAME [--messages N] [--balance X] [--whatsapp-price X] [--rate-limit N] [--domain DOMAIN]... [--json]',
  positionals: [],
  options: {
    name: { type: 'string' }, messages: { type: 'string' }, balance: { type: 'string' }, 'whatsapp-price': { type: 'string' },
    'rate-limit': { type: 'string' }, domain: { type: 'string', multiple: true },
  },
  needsStore: true,
  async run(deps, _args, values) {
    const input = parseNewAccount(compact({
      name: values.name, messagesLeft: integerFlag(values.messages), balance: values.balance,
      whatsappPrice: values['whatsapp-price'], rateLimitPerSecond: integerFlag(values['rate-limit']),
    }));
    if (!input.ok) return input;
    // Domains are checked before the account exists, so a typo leaves nothing half made.
    const domains = new Set<string>();
    for (const domain of Array.isArray(values.domain) ? values.domain : []) {
      const parsed = parseNewSenderDomain({ domain, verified: true });
      if (!parsed.ok) return parsed;
      domains.add(parsed.value.domain);
    }
    const created = await createAccount(deps, input.value);
    const added: SenderDomainView[] = [];
    for (const domain of domains) {
      const result = await addSenderDomain(deps, created.account.id, { domain, verified: true });
      if (!result.ok) return result;
      added.push(result.value);
    }
    const body = accountBody(created.account);
    const { id, apiKey, scopes } = created.apiKey;
    return printed({ account: body, apiKey: { id, apiKey, scopes }, domains: added }, [
      ...human.accountText(body),
      ...human.issuedKeyText(issuedKeyBody(created.apiKey)),
      ...added.map(human.domainText),
    ]);
  },
};

const accountShow: StoreCommand = {
  usage: 'accounts show ACCOUNT_ID [--json]',
  positionals: ['ACCOUNT_ID'],
  options: {},
  needsStore: true,
  async run(deps, [id = '']) {
    const details = await viewAccount(deps, id);
    return details.ok ? printed(details.value, human.accountDetailsText(details.value)) : details;
  },
};

const accountUpdate: StoreCommand = {
  usage: 'accounts update ACCOUNT_ID [--name NAME] [--messages N | --add-messages N] [--balance X | --add-balance X] [--whatsapp-price X] [--active true|false] [--rate-limit N] [--json]',
  positionals: ['ACCOUNT_ID'],
  options: {
    name: { type: 'string' }, messages: { type: 'string' }, 'add-messages': { type: 'string' }, balance: { type: 'string' },
    'add-balance': { type: 'string' }, 'whatsapp-price': { type: 'string' }, active: { type: 'string' }, 'rate-limit': { type: 'string' },
  },
  needsStore: true,
  async run(deps, [id = ''], values) {
    const input = parseAccountUpdate(compact({
      name: values.name, messagesLeft: integerFlag(values.messages), addMessages: integerFlag(values['add-messages']),
      balance: values.balance, addBalance: values['add-balance'], whatsappPrice: values['whatsapp-price'],
      active: booleanFlag(values.active), rateLimitPerSecond: integerFlag(values['rate-limit']),
    }));
    if (!input.ok) return input;
    const updated = await updateAccount(deps, id, input.value);
    if (!updated.ok) return updated;
    const body = accountBody(updated.value);
    return printed(body, human.accountText(body));
  },
};

const accountLedger: StoreCommand = {
  usage: 'accounts ledger ACCOUNT_ID [--json]',
  positionals: ['ACCOUNT_ID'],
  options: {},
  needsStore: true,
  async run(deps, [id = '']) {
    const ledger = await viewLedger(deps, id);
    return ledger.ok ? printed(ledger.value, human.ledgerText(ledger.value.entries)) : ledger;
  },
};

const keyCreate: StoreCommand = {
  usage: 'keys create ACCOUNT_ID [--scopes email,sms,whatsapp,webhooks,account] [--expires-at ISO_TIME] [--mode live|test] [--json]',
  positionals: ['ACCOUNT_ID'],
  options: { scopes: { type: 'string' }, 'expires-at': { type: 'string' }, mode: { type: 'string' } },
  needsStore: true,
  async run(deps, [id = ''], values) {
    const scopes = str(values.scopes)?.split(',').map((s) => s.trim()).filter(Boolean);
    const input = parseNewApiKey(compact({ scopes, expiresAt: values['expires-at'], mode: values.mode }), deps.clock());
    if (!input.ok) return input;
    if (!(await accountExists(deps, id))) return reject('notFound');
    const key = issuedKeyBody(await issueApiKey(deps, deps.db, id, input.value));
    return printed(key, human.issuedKeyText(key));
  },
};

const keyRevoke: StoreCommand = {
  usage: 'keys revoke ACCOUNT_ID KEY_ID [--json]',
  positionals: ['ACCOUNT_ID', 'KEY_ID'],
  options: {},
  needsStore: true,
  async run(deps, [accountId = '', keyId = '']) {
    if (!(await revokeKey(deps, accountId, keyId))) return reject('notFound');
    return printed({ id: keyId, revoked: true }, [`API key ${keyId} revoked.`]);
  },
};

const domainAdd: StoreCommand = {
  usage: 'domains add ACCOUNT_ID DOMAIN [--verified] [--json]',
  positionals: ['ACCOUNT_ID', 'DOMAIN'],
  options: { verified: { type: 'boolean' } },
  needsStore: true,
  async run(deps, [accountId = '', domain], values) {
    const added = await addSenderDomain(deps, accountId, { domain, verified: values.verified === true });
    return added.ok ? printed(added.value, [human.domainText(added.value)]) : added;
  },
};

const templateAdd: StoreCommand = {
  usage: 'whatsapp-templates add ACCOUNT_ID --name NAME --body "Hi {{1}}" [--language en_US] [--status APPROVED|PENDING|REJECTED] [--json]',
  positionals: ['ACCOUNT_ID'],
  options: { name: { type: 'string' }, body: { type: 'string' }, language: { type: 'string' }, status: { type: 'string' } },
  needsStore: true,
  async run(deps, [accountId = ''], values) {
    const input = checkOperatorInput(NewWhatsappTemplateBody, compact({
      name: values.name, body: values.body, language: values.language, status: values.status,
    }));
    if (!input.ok) return input;
    const created = await createWhatsappTemplate(deps, accountId, input.value);
    return created.ok ? printed(created.value, human.templateText(created.value)) : created;
  },
};

const userInvite: StoreCommand = {
  usage: 'users invite --account ACCOUNT_ID --email EMAIL --role owner|developer|viewer [--json]',
  positionals: [],
  options: { account: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
  needsStore: true,
  async run(deps, _args, values) {
    const accountId = str(values.account) ?? '';
    const role = str(values.role);
    if (!isRole(role)) return reject('invalidField', { detail: 'role must be one of: owner, developer, viewer' });
    if (!(await accountExists(deps, accountId))) return reject('notFound');
    const invited = await inviteUser(deps, accountId, { email: str(values.email) ?? '', role });
    if (!invited.ok) return invited;
    const body = invitedBody(invited.value);
    // The link is the whole point of the command: printed once, never logged or stored.
    return printed(body, [
      `Invited ${body.email} as ${body.role} (user ${body.user_id}).`,
      `Send them this link; it works once, until ${body.invitation_expires_at}:`,
      body.invitation_url,
    ]);
  },
};

const config: PlainCommand = {
  usage: 'config [--check] [--json]',
  positionals: [],
  options: { check: { type: 'boolean' } },
  needsStore: false,
  async run(_args, values) {
    // --check: the values this environment gives (validated; secrets masked), not the documentation.
    if (values.check === true) {
      const settings = settingsInEffect(process.env);
      return ok({ json: { settings }, text: settingsText(settings) });
    }
    return ok({ json: { settings: settingDocs() }, text: configTable() });
  },
};

/** Command words → command; the words are matched before flags are parsed. */
export const COMMANDS: ReadonlyMap<string, Command> = new Map<string, Command>([
  ['accounts create', accountCreate],
  ['accounts show', accountShow],
  ['accounts update', accountUpdate],
  ['accounts ledger', accountLedger],
  ['keys create', keyCreate],
  ['keys revoke', keyRevoke],
  ['domains add', domainAdd],
  ['whatsapp-templates add', templateAdd],
  ['users invite', userInvite],
  ['config', config],
  ['certificates verify', certificatesVerify],
]);
