import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createAccount, type NewAccount } from '../../src/app/create-account.ts';
import { findAccountIdByName } from '../../src/store/accounts.ts';
import { issueApiKey } from '../../src/app/api-keys.ts';
import type { Account } from '../../src/domain/account.ts';
import type { Scope } from '../../src/domain/access.ts';
import { findAccount } from '../../src/store/accounts.ts';
import { insertWhatsappTemplate, type WhatsappTemplate } from '../../src/store/whatsapp-templates.ts';
import { loadConfig } from '../../src/config.ts';
import { createService, type Service, type ServiceOptions } from '../../src/service.ts';
import { insertSenderDomain } from '../../src/store/sender-domains.ts';
import { serviceSchema } from './postgres.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/**
 * A real service on an in-memory SQLite store, or with HERALD_TEST_STORE=postgres (set
 * by test/run-postgres.ts) on an empty schema of TEST_POSTGRES_URL of its own; closed
 * (and its schema emptied) when the test ends. A test that names its own HERALD_DATABASE_URL keeps it.
 */
export async function startService(t: TestContext, options: ServiceOptions & { env?: Record<string, string> } = {}): Promise<Service> {
  const schema = process.env.HERALD_TEST_STORE === 'postgres' && options.env?.HERALD_DATABASE_URL === undefined ? await serviceSchema() : undefined;
  const config = loadConfig({ HERALD_DATABASE_URL: schema?.url ?? 'sqlite::memory:', HERALD_ADMIN_TOKEN: ADMIN_TOKEN, HERALD_FETCH_ALLOW_PRIVATE: 'true', ...options.env });
  let service: Service;
  try {
    service = await createService(config, { logger: false, worker: false, ...options });
  } catch (error) {
    await schema?.release();
    throw error;
  }
  t.after(async () => {
    await service.close();
    await schema?.release();
  });
  return service;
}

export interface TestAccount {
  readonly id: string;
  readonly apiKey: string;
}

/** An account with a verified example.com sender domain and an all-scope key. */
export async function openAccount(service: Pick<Service, 'deps'>, input: Partial<NewAccount> = {}): Promise<TestAccount> {
  // Names are unique: a second "acme" in one database is "acme 2", then "acme 3"…
  const base = input.name ?? 'acme';
  let name = base;
  for (let n = 2; (await findAccountIdByName(service.deps.db, name)) !== undefined; n++) name = `${base} ${n}`;
  const { account, apiKey } = await createAccount(service.deps, { messagesLeft: 1000, rateLimitPerSecond: 1000, ...input, name });
  await insertSenderDomain(service.deps.db, { id: service.deps.newId(), accountId: account.id, domain: 'example.com', verified: true, createdAt: service.deps.clock() });
  return { id: account.id, apiKey: apiKey.apiKey };
}

export async function keyWithScopes(service: Service, accountId: string, scopes: readonly Scope[]): Promise<string> {
  return (await issueApiKey(service.deps, service.deps.db, accountId, { scopes })).apiKey;
}

export function post(service: Service, url: string, apiKey: string | undefined, body: unknown): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method: 'POST', url,
    headers: { 'content-type': 'application/json', ...(apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` }) },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

export function get(service: Service, url: string, apiKey: string): Promise<LightMyRequestResponse> {
  return service.http.inject({ method: 'GET', url, headers: { authorization: `Bearer ${apiKey}` } });
}

/** A valid direct-mode email request; override what a test is about. */
export function emailBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    to: [{ email: 'ana@example.org' }],
    from: { email: 'news@example.com', name: 'Example News' },
    replyTo: { email: 'help@example.com', name: 'Help' },
    subject: 'Hello',
    body: '<p>Hi there</p>',
    ...overrides,
  };
}

// ---- Helpers for the HTTP contract tests (appended) ----

/** UUID-like text, as the spec describes msgids. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A key with its id (for revocation); all scopes unless given. */
export async function issueKey(service: Service, accountId: string, scopes?: readonly Scope[]): Promise<{ id: string; apiKey: string }> {
  const issued = await issueApiKey(service.deps, service.deps.db, accountId, scopes === undefined ? {} : { scopes });
  return { id: issued.id, apiKey: issued.apiKey };
}

/** The account as stored now (messages left, balance ...). */
export async function readAccount(service: Service, accountId: string): Promise<Account> {
  const account = await findAccount(service.deps.db, accountId);
  if (!account) throw new Error(`no account ${accountId}`);
  return account;
}

/** Stores a WhatsApp template for the account; approved, two params, unless overridden. */
export async function addWhatsappTemplate(
  service: Service,
  accountId: string,
  overrides: Partial<WhatsappTemplate> = {},
): Promise<WhatsappTemplate> {
  const now = service.deps.clock();
  const template: WhatsappTemplate = {
    id: service.deps.newId(), accountId, name: 'otp_code', language: 'en', body: 'Hi {{1}}, your code is {{2}}',
    paramCount: 2, status: 'APPROVED', createdAt: now, updatedAt: now, ...overrides,
  };
  await insertWhatsappTemplate(service.deps.db, template);
  return template;
}

/** POST with full control over headers and peer address (allow-list and proxy tests). */
export function postFrom(
  service: Service,
  url: string,
  options: { apiKey?: string; body?: unknown; remoteAddress?: string; headers?: Record<string, string> },
): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method: 'POST', url,
    ...(options.remoteAddress === undefined ? {} : { remoteAddress: options.remoteAddress }),
    headers: {
      'content-type': 'application/json',
      ...(options.apiKey === undefined ? {} : { authorization: `Bearer ${options.apiKey}` }),
      ...options.headers,
    },
    payload: typeof options.body === 'string' ? options.body : JSON.stringify(options.body ?? {}),
  });
}

/** A valid SMS request; override what a test is about. */
export function smsBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { message: 'Your code is 1234', mobile_numbers: ['+5215512345678'], ...overrides };
}

/**
 * A store that services started one after another share (a restart): a SQLite file of
 * the test's own, or with HERALD_TEST_STORE=postgres an empty schema of its own.
 */
export async function sharedStore(t: TestContext): Promise<string> {
  if (process.env.HERALD_TEST_STORE === 'postgres') {
    const schema = await serviceSchema();
    t.after(() => schema.release());
    return schema.url;
  }
  const dir = mkdtempSync(join(tmpdir(), 'herald-shared-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return `sqlite:${join(dir, 'herald.db')}`;
}

/** A service on a store from sharedStore; closed when the test ends unless the test closes it first. */
export async function startServiceOn(t: TestContext, store: string, options: ServiceOptions = {}): Promise<Service> {
  return startService(t, { ...options, env: { HERALD_DATABASE_URL: store } });
}

/** Any request with the key (PATCH, DELETE, a raw body with its own content type). */
export function send(
  service: Service, method: 'PATCH' | 'DELETE' | 'POST' | 'GET', url: string, apiKey: string, body?: unknown, contentType = 'application/json',
): Promise<LightMyRequestResponse> {
  return service.http.inject({
    method, url,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': contentType }) },
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}
