import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IssuedKey } from '../../app/api-keys.ts';
import { ledgerPage, type LedgerEntry as StoredLedgerEntry } from '../../app/ledger-page.ts';
import { changeOwnAccount } from '../../app/own-account.ts';
import { freshAccount } from '../../app/read-caches.ts';
import { createOwnKey, listOwnKeys, revokeOwnKey, type ApiKeyRecord } from '../../app/own-api-keys.ts';
import { accountUsage, type Usage } from '../../app/usage.ts';
import type { Account } from '../../domain/account.ts';
import { formatMoney } from '../../domain/money.ts';
import { AccountView, IpAllowListRequest, LedgerEntry, LedgerPage, LedgerQuery, UsageQuery, UsageView } from '../schemas/account.ts';
import { ApiKeyList, ApiKeyView, IssuedApiKey, NewApiKeyRequest } from '../schemas/api-keys.ts';
import { ErrorBody } from '../schemas/errors.ts';
import { callerOf, grantOf, sendingMode } from '../route-access.ts';
import { sendRejection, sendResult } from '../wire-errors.ts';
import type { RouteDeps } from '../route-deps.ts';

// The account's own operations (scope `account`; users by role): the account and its IP
// allow-list, its API keys, usage and the ledger. Shapes: schemas/account.ts and schemas/api-keys.ts, the
// contract the web application is built on. Fastify checks the bodies against them
// (input-validation.ts); domain/ and app/ check what a schema cannot say.

const tags = ['account'];
const badField = { 400: { description: '`Invalid request, a field has the wrong type or value` with `detail`', ...ErrorBody } } as const;
const lockOut = {
  409: { description: '`The IP allow-list would lock you out` with `detail` naming the caller\'s address: a session saved a list that binds sessions without it', ...ErrorBody },
} as const;
const notFound = { 404: { description: '`Not found`', ...ErrorBody } } as const;

const iso = (ms: number): string => new Date(ms).toISOString();
const isoOrNull = (ms: number | null): string | null => (ms === null ? null : iso(ms));

export function accountView(account: Account, callerIp: string): AccountView {
  return {
    account_id: account.id,
    name: account.name,
    active: account.active,
    messages_left: account.messagesLeft,
    balance: formatMoney(account.balance),
    whatsapp_price: formatMoney(account.whatsappPrice),
    rate_limit_per_second: account.rateLimitPerSecond,
    services: { email: account.services.email, sms: account.services.sms, whatsapp: account.services.whatsapp },
    ip_allow_list: [...account.ipAllowList],
    allow_list_applies_to: account.allowListAppliesTo,
    caller_ip: callerIp,
    sms_senders: [...account.smsSenders],
  };
}

const keyView = (key: ApiKeyRecord): ApiKeyView => ({
  key_id: key.id, name: key.name, scopes: [...key.scopes], created_at: iso(key.createdAt), expires_at: isoOrNull(key.expiresAt),
  last_used_at: isoOrNull(key.lastUsedAt), last_used_ip: key.lastUsedIp, revoked_at: isoOrNull(key.revokedAt), mode: key.mode,
});

const issuedView = (key: IssuedKey): IssuedApiKey => ({
  key_id: key.id, api_key: key.apiKey, name: key.name, scopes: [...key.scopes], created_at: iso(key.createdAt), expires_at: isoOrNull(key.expiresAt), mode: key.mode,
});

const ledgerView = (entry: StoredLedgerEntry): LedgerEntry => ({
  entry_id: entry.id, at: iso(entry.at), kind: entry.reason, messages: entry.messagesDelta,
  amount: formatMoney(entry.balanceDelta), reason: entry.note ?? null, send_id: entry.sendId,
});

const usageView = (usage: Usage): UsageView => ({
  days: usage.days.map((d) => ({ date: d.date, email: { ...d.email }, sms: { ...d.sms }, whatsapp: { ...d.whatsapp } })),
  today: { ...usage.today },
  bounce_rate: usage.bounceRate,
  complaint_rate: usage.complaintRate,
});

const isOwner = (request: FastifyRequest): boolean => grantOf(callerOf(request).principal).access.includes('owner');

export function accountRoutes(app: FastifyInstance, { app: deps }: RouteDeps): void {
  // Read again: the caller's account may come from the read cache, whose amounts can be a second old (app/read-caches.ts).
  app.get('/v1/account', {
    schema: { summary: 'The account: its state, what it has left, its channels and IP allow-list, and the address this request came from', tags, response: { 200: AccountView } },
    config: { access: { scope: 'account', access: 'read' } },
  }, async (request) => accountView((await freshAccount(deps, callerOf(request).account.id)) ?? callerOf(request).account, request.ip));

  app.patch<{ Body: IpAllowListRequest }>('/v1/account', {
    schema: {
      summary: 'Change the IP allow-list and whom it binds (`allow_list_applies_to`: `all`, keys and sessions; `keys`, keys only); entries are stored in canonical form. '
        + 'With a session, a list that binds sessions and leaves out the caller\'s own address is refused (409)',
      tags, body: IpAllowListRequest, response: { 200: AccountView, ...badField, ...lockOut },
    },
    config: { access: { scope: 'account', access: 'owner' } },
  }, async (request, reply) => {
    const { account, principal } = callerOf(request);
    const saver = principal.kind === 'user' ? { kind: 'session' as const, ip: request.ip } : { kind: 'key' as const };
    const changed = await changeOwnAccount(deps, account.id, request.body, saver);
    return changed.ok ? accountView(changed.value, request.ip) : sendRejection(reply, changed.rejection);
  });

  app.get('/v1/api-keys', {
    schema: { summary: 'The account\'s API keys, oldest first, revoked ones included (never the keys themselves)', tags, response: { 200: ApiKeyList } },
    config: { access: { scope: 'account', access: 'read' } },
  }, async (request): Promise<ApiKeyList> => ({ api_keys: (await listOwnKeys(deps, callerOf(request).account.id)).map(keyView) }));

  app.post<{ Body: NewApiKeyRequest }>('/v1/api-keys', {
    schema: {
      summary: 'Make an API key with scopes, an optional expiry and a mode (live or test); the key is in this answer only (herald keeps its hash). Only an owner may give the `account` scope',
      tags, body: NewApiKeyRequest, response: { 201: IssuedApiKey, ...badField },
    },
    config: { access: { scope: 'account', access: 'write' } },
  }, async (request, reply) => {
    const created = await createOwnKey(deps, callerOf(request).account.id, request.body, { isOwner: isOwner(request), mode: sendingMode(request) });
    return created.ok ? reply.code(201).send(issuedView(created.value)) : sendRejection(reply, created.rejection);
  });

  app.delete<{ Params: { keyId: string } }>('/v1/api-keys/:keyId', {
    schema: {
      summary: 'Revoke a key: from now on it gets 403 `Invalid API Key `. Only an owner may revoke a key with the `account` scope, as only an owner may make one', tags,
      params: { type: 'object', required: ['keyId'], properties: { keyId: { type: 'string', format: 'uuid' } } },
      response: { 204: { type: 'null', description: 'Revoked' }, 401: { description: '`API key not authorized.`: a key with the `account` scope, and the caller is not an owner', ...ErrorBody }, ...notFound },
    },
    config: { access: { scope: 'account', access: 'write' } },
  }, async (request, reply) => sendResult(reply, await revokeOwnKey(deps, callerOf(request).account.id, request.params.keyId, { isOwner: isOwner(request), mode: sendingMode(request) }), 204));

  app.get('/v1/usage', {
    schema: {
      summary: 'Messages per UTC day and channel (accepted, delivered, bounced, failed), today\'s sends, email bounce and complaint rates',
      tags, querystring: UsageQuery, response: { 200: UsageView, ...badField },
    },
    config: { access: { scope: 'account', access: 'read' } },
  }, async (request, reply) => {
    const usage = await accountUsage(deps, callerOf(request).account.id, request.query);
    return usage.ok ? usageView(usage.value) : sendRejection(reply, usage.rejection);
  });

  app.get('/v1/ledger', {
    schema: { summary: 'Every movement of the account\'s messages and money, newest first, by date and a cursor', tags, querystring: LedgerQuery, response: { 200: LedgerPage, ...badField } },
    config: { access: { scope: 'account', access: 'read' } },
  }, async (request, reply) => {
    const page = await ledgerPage(deps, callerOf(request).account.id, request.query);
    const body: LedgerPage | undefined = page.ok ? { entries: page.value.entries.map(ledgerView), next_cursor: page.value.nextCursor } : undefined;
    return page.ok ? body : sendRejection(reply, page.rejection);
  });
}
