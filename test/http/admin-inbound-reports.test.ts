// GET /admin/v1/inbound-reports[/:id]: the operator pages through what the inbound
// listener kept, newest first, and reads one report whole.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { recordInboundReport } from '../../src/app/record-inbound-report.ts';
import type { Service } from '../../src/service.ts';
import { ADMIN_TOKEN, startService } from '../support/service.ts';
import { UNTAGGED_HORIZON_MS } from '../support/verp.ts';

let tick = Date.parse('2025-06-01T00:00:00.000Z');

async function withReports(t: TestContext, count: number): Promise<{ service: Service; ids: string[] }> {
  const service = await startService(t, { clock: () => tick, env: { HERALD_BOUNCE_DOMAIN: 'bounces.herald.test' } });
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    tick += 1000;
    const kept = await recordInboundReport({ ...service.deps, untaggedHorizonMs: UNTAGGED_HORIZON_MS }, { mailFrom: null, rcptTo: 'postmaster@bounces.herald.test' }, `Subject: report ${i}\r\n\r\nbody\r\n`, {
      kind: 'unknown', error: 'not a multipart/report (Content-Type missing)', returned: null,
    });
    ids.push(kept.id);
  }
  return { service, ids };
}

const admin = (service: Service, url: string, token = ADMIN_TOKEN) =>
  service.http.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

test('reports are listed newest first, a page at a time, with nextCursor until the last page', async (t) => {
  const { service, ids } = await withReports(t, 3);

  const first = (await admin(service, '/admin/v1/inbound-reports?limit=2')).json();
  const second = (await admin(service, `/admin/v1/inbound-reports?limit=2&cursor=${first.nextCursor}`)).json();

  assert.deepStrictEqual(first.reports.map((r: { id: string }) => r.id), [ids[2], ids[1]]);
  assert.equal(first.nextCursor, ids[1]);
  assert.deepStrictEqual(second.reports.map((r: { id: string }) => r.id), [ids[0]]);
  assert.equal(second.nextCursor, null);
});

test('a listed report shows its envelope, kind, match and error but not its raw text', async (t) => {
  const { service, ids } = await withReports(t, 1);

  const [report] = (await admin(service, '/admin/v1/inbound-reports')).json().reports;

  assert.deepStrictEqual(report, {
    id: ids[0], receivedAt: new Date(tick).toISOString(), kind: 'unknown', mailFrom: null, rcptTo: 'postmaster@bounces.herald.test',
    messageId: null, error: 'not a multipart/report (Content-Type missing)',
  });
});

test('one report reads back whole: raw, parsed and error', async (t) => {
  const { service, ids } = await withReports(t, 1);

  const res = await admin(service, `/admin/v1/inbound-reports/${ids[0]}`);

  assert.equal(res.statusCode, 200);
  assert.deepStrictEqual(res.json(), {
    id: ids[0], receivedAt: new Date(tick).toISOString(), kind: 'unknown', mailFrom: null, rcptTo: 'postmaster@bounces.herald.test',
    messageId: null, error: 'not a multipart/report (Content-Type missing)',
    parsed: { returned: null, msgid: null, matched_by: null, effect: 'none' },
    raw: 'Subject: report 0\r\n\r\nbody\r\n',
  });
});

test('an unknown report id is 404', async (t) => {
  const { service } = await withReports(t, 0);
  for (const id of ['01960000-0000-7000-8000-0000000000ff', 'not-an-id']) {
    const res = await admin(service, `/admin/v1/inbound-reports/${id}`);
    assert.deepStrictEqual([res.statusCode, res.json()], [404, { message: 'Not found' }]);
  }
});

test('a cursor that is not a report id is refused with 400', async (t) => {
  const { service } = await withReports(t, 0);
  const res = await admin(service, '/admin/v1/inbound-reports?cursor=yesterday');
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'Invalid request, a field has the wrong type or value', detail: 'cursor: must be the nextCursor of a previous page' }]);
});

test('a limit outside 1 to 200 is refused with 400', async (t) => {
  const { service } = await withReports(t, 0);
  for (const limit of ['0', '201', 'ten']) {
    const res = await admin(service, `/admin/v1/inbound-reports?limit=${limit}`);
    assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'Invalid request, a field has the wrong type or value', detail: 'limit: must be a whole number from 1 to 200' }]);
  }
});

test('without the admin token the reports are not shown', async (t) => {
  const { service } = await withReports(t, 1);
  const res = await admin(service, '/admin/v1/inbound-reports', 'not-the-admin-token-at-all');
  assert.deepStrictEqual([res.statusCode, res.json()], [401, { message: 'Admin token missing or invalid' }]);
});
