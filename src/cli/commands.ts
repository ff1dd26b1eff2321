import { ok } from '../domain/result.ts';
import { accountCreate, accountLedger, accountList, accountShow, accountUpdate } from './account-commands.ts';
import { certificatesVerify } from './certificate-commands.ts';
import type { Command, PlainCommand } from './command-kit.ts';
import { settingsInEffect, settingsText } from './config-check.ts';
import { configTable, settingDocs } from './config-table.ts';
import { domainAdd, domainList, domainShow, domainVerify } from './domain-commands.ts';
import { keyCreate, keyList, keyRevoke } from './key-commands.ts';
import { receivingDomainMarkVerified } from './receiving-domain-commands.ts';
import { backup, outboxHold, outboxRelease, outboxStatus } from './outbox-commands.ts';
import { templateList, whatsappTemplateAdd } from './template-commands.ts';
import { userInvite, userList, userRemove, userRole } from './user-commands.ts';

export type { Command, OnDemandStoreCommand, Printed, StoreCommand, Values } from './command-kit.ts';

const config: PlainCommand = {
  usage: 'config [--check] [--json]',
  summary: 'The settings herald reads, documented (--check: the values this environment gives, validated, secrets masked)',
  positionals: [],
  options: { check: { type: 'boolean' } },
  needsStore: false,
  async run(_args, values) {
    if (values.check === true) {
      const settings = settingsInEffect(process.env);
      return ok({ json: { settings }, text: settingsText(settings) });
    }
    return ok({ json: { settings: settingDocs() }, text: configTable() });
  },
};

/** What each group of commands is for, in `herald --help`. */
export const GROUPS: ReadonlyMap<string, string> = new Map([
  ['accounts', 'open, find, show and change accounts; read their ledger'],
  ['keys', 'an account\'s API keys'],
  ['domains', 'an account\'s sender domains and their DNS records'],
  ['receiving-domains', 'the domains accounts receive email at'],
  ['templates', 'an account\'s email and WhatsApp templates'],
  ['whatsapp-templates', 'record WhatsApp templates'],
  ['users', 'the people who sign in to an account\'s web application'],
  ['certificates', 'check a delivery receipt against its message'],
  ['config', 'the settings herald reads'],
  ['backup', 'an online copy of the SQLite store (PostgreSQL: the pg_dump line)'],
  ['outbox', 'hold delivery (a restored copy, --paused) and release it after review'],
]);

/** Command words → command; the words are matched before flags are parsed. */
export const COMMANDS: ReadonlyMap<string, Command> = new Map<string, Command>([
  ['accounts create', accountCreate],
  ['accounts list', accountList],
  ['accounts show', accountShow],
  ['accounts update', accountUpdate],
  ['accounts ledger', accountLedger],
  ['keys list', keyList],
  ['keys create', keyCreate],
  ['keys revoke', keyRevoke],
  ['domains add', domainAdd],
  ['domains list', domainList],
  ['domains show', domainShow],
  ['domains verify', domainVerify],
  ['receiving-domains mark-verified', receivingDomainMarkVerified],
  ['templates list', templateList],
  ['whatsapp-templates add', whatsappTemplateAdd],
  ['users invite', userInvite],
  ['users list', userList],
  ['users role', userRole],
  ['users remove', userRemove],
  ['config', config],
  ['certificates verify', certificatesVerify],
  ['backup', backup],
  ['outbox hold', outboxHold],
  ['outbox release', outboxRelease],
  ['outbox status', outboxStatus],
]);
