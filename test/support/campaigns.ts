// A campaign's world for the HTTP tests: a service on a clock standing at T0 with
// HERALD_PUBLIC_URL, an account, lists and contacts made through the API, and helpers
// that create, send and run campaigns to the capture transport.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import type { Service, ServiceOptions } from '../../src/service.ts';
import { get, openAccount, post, startService, type TestAccount } from './service.ts';
import { PUBLIC_URL, T0 } from './sent-mail.ts';

export interface CampaignWorld {
  readonly service: Service;
  readonly account: TestAccount;
  readonly clock: { now: number };
}

/** `start`: the clock's first time (default T0; a webhook receiver checks signatures against the real time). */
export async function campaignWorld(t: TestContext, options: ServiceOptions & { messagesLeft?: number; env?: Record<string, string>; start?: number } = {}): Promise<CampaignWorld> {
  const { messagesLeft, env, start, ...rest } = options;
  const clock = { now: start ?? T0 };
  const service = await startService(t, { clock: () => clock.now, env: { HERALD_PUBLIC_URL: PUBLIC_URL, ...env }, ...rest });
  const account = await openAccount(service, messagesLeft === undefined ? {} : { messagesLeft });
  return { service, account, clock };
}

export async function makeList(w: CampaignWorld, name: string): Promise<string> {
  const res = await post(w.service, '/v1/lists', w.account.apiKey, { name, optin: 'single' });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().list_id;
}

export async function makeContact(w: CampaignWorld, email: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await post(w.service, '/v1/contacts', w.account.apiKey, { email, ...body });
  assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
  return res.json().contact_id;
}

/** A valid campaign body to `lists`; override what a test is about. */
export function campaignBody(lists: readonly string[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'July news',
    subject: 'News for {{contact.name}}',
    from: { email: 'news@example.com', name: 'Example News' },
    replyTo: { email: 'help@example.com', name: 'Help' },
    body: '<html><body><p>Hi {{contact.name}} from {{contact.attributes.city}}</p></body></html>',
    lists,
    ...overrides,
  };
}

export async function createCampaign(w: CampaignWorld, body: Record<string, unknown>): Promise<string> {
  const res = await post(w.service, '/v1/campaigns', w.account.apiKey, body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().campaign_id;
}

export function action(w: CampaignWorld, id: string, verb: string, body: unknown = {}): Promise<LightMyRequestResponse> {
  return post(w.service, `/v1/campaigns/${id}/${verb}`, w.account.apiKey, body);
}

/** The campaign runner, then the worker, until nothing is due now; the clock moves 1 s after. */
export async function runCampaigns(w: CampaignWorld): Promise<void> {
  const runner = w.service.campaigns;
  assert.ok(runner, 'the service runs a campaign runner');
  for (let i = 0; i < 3; i += 1) {
    await runner.drain();
    await w.service.worker.drain();
    w.clock.now += 1000;
  }
  await runner.drain();
}

export async function campaignOf(w: CampaignWorld, id: string): Promise<Record<string, unknown>> {
  const res = await get(w.service, `/v1/campaigns/${id}`, w.account.apiKey);
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}
