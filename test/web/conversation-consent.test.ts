// The Conversations page reads the person's consent from GET /v1/consent leniently
// (web/src/api/consent.ts readConsent): the ledger's answer is issue 23's, and the
// page shows a badge per channel whichever of the two plain shapes it takes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readConsent } from '../../web/src/api/consent.ts';

test('channels as a list of states become one badge each, opted out or in, with the time', () => {
  const body = { address: '+5215512345678', channels: [
    { channel: 'sms', state: 'opted_out', at: '2026-05-01T08:00:00.000Z' },
    { channel: 'whatsapp', state: 'opted_in' },
  ], history: [] };

  assert.deepStrictEqual(readConsent(body), [
    { channel: 'sms', optedOut: true, at: '2026-05-01T08:00:00.000Z' },
    { channel: 'whatsapp', optedOut: false, at: null },
  ]);
});

test('channels as an object of states are read the same, and anything else shows nothing', () => {
  assert.deepStrictEqual(readConsent({ channels: { sms: { opted_out: true, since: '2026-05-01T08:00:00.000Z' }, email: 'odd' } }), [
    { channel: 'sms', optedOut: true, at: '2026-05-01T08:00:00.000Z' },
  ]);
  assert.deepStrictEqual([readConsent(null), readConsent({ channels: 3 }), readConsent([])], [[], [], []]);
});
