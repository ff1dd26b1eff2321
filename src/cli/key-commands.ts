import { accountExists, issuedKeyBody } from '../app/account-view.ts';
import { issueApiKey, revokeKey } from '../app/api-keys.ts';
import { listOwnKeys } from '../app/own-api-keys.ts';
import { parseNewApiKey } from '../domain/admin-input.ts';
import { reject } from '../domain/result.ts';
import { compact, printed, storeCommand, str } from './command-kit.ts';
import * as human from './human-output.ts';

// `keys …`: an account's API keys. A key is printed once, when it is made.

const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const keyList = storeCommand({
  usage: 'keys list ACCOUNT_ID [--json]',
  summary: 'An account\'s API keys, by id (the keys themselves are never stored), revoked ones included',
  positionals: ['ACCOUNT_ID'],
  async run(deps, [accountId = '']) {
    if (!(await accountExists(deps, accountId))) return reject('notFound');
    const keys = (await listOwnKeys(deps, accountId)).map((k) => ({
      id: k.id, name: k.name, scopes: [...k.scopes], createdAt: new Date(k.createdAt).toISOString(), expiresAt: isoOrNull(k.expiresAt),
      revokedAt: isoOrNull(k.revokedAt), lastUsedAt: isoOrNull(k.lastUsedAt), lastUsedIp: k.lastUsedIp,
    }));
    return printed({ keys }, human.keyListText(keys));
  },
});

export const keyCreate = storeCommand({
  usage: 'keys create ACCOUNT_ID [--scopes email,sms,whatsapp,webhooks,account] [--expires-at ISO_TIME] [--mode live|test] [--json]',
  summary: 'Issue an API key (printed this once), limited to the scopes given; a test key sends through the capture transports, unbilled',
  positionals: ['ACCOUNT_ID'],
  options: { scopes: { type: 'string' }, 'expires-at': { type: 'string' }, mode: { type: 'string' } },
  flagOf: { scopes: 'scopes', expiresAt: 'expires-at', mode: 'mode' },
  async run(deps, [id = ''], values) {
    const scopes = str(values.scopes)?.split(',').map((s) => s.trim()).filter(Boolean);
    const input = parseNewApiKey(compact({ scopes, expiresAt: values['expires-at'], mode: values.mode }), deps.clock());
    if (!input.ok) return input;
    if (!(await accountExists(deps, id))) return reject('notFound');
    const key = issuedKeyBody(await issueApiKey(deps, deps.db, id, input.value));
    return printed(key, human.issuedKeyText(key));
  },
});

export const keyRevoke = storeCommand({
  usage: 'keys revoke ACCOUNT_ID KEY_ID [--json]',
  summary: 'Revoke an API key: every API process refuses it within seconds',
  positionals: ['ACCOUNT_ID', 'KEY_ID'],
  async run(deps, [accountId = '', keyId = '']) {
    if (!(await revokeKey(deps, accountId, keyId))) return reject('notFound');
    return printed({ id: keyId, revoked: true }, [`API key ${keyId} revoked.`]);
  },
});
