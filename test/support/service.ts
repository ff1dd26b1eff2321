import type { TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createAccount, type NewAccount } from '../../src/app/create-account.ts';
import { issueApiKey } from '../../src/app/api-keys.ts';
import type { Scope } from '../../src/domain/account.ts';
import { loadConfig } from '../../src/config.ts';
import { createService, type Service, type ServiceOptions } from '../../src/service.ts';
import { insertSenderDomain } from '../../src/store/sender-domains.ts';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** A real service on an in-memory SQLite store; closed when the test ends. */
export async function startService(t: TestContext, options: ServiceOptions & { env?: Record<string, string> } = {}): Promise<Service> {
  const config = loadConfig({ HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_ADMIN_TOKEN: ADMIN_TOKEN, ...options.env });
  const service = await createService(config, { logger: false, worker: false, fetchAllowPrivate: true, ...options });
  t.after(() => service.close());
  return service;
}

export interface TestAccount {
  readonly id: string;
  readonly apiKey: string;
}

/** An account with a verified example.com sender domain and an all-scope key. */
export async function openAccount(service: Service, input: Partial<NewAccount> = {}): Promise<TestAccount> {
  const { account, apiKey } = await createAccount(service.deps, { name: 'acme', messagesLeft: 1000, rateLimitPerSecond: 1000, ...input });
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
