// The Conversations page's consent badges (web/src/api/consent.ts readConsent) from
// GET /v1/consent's answer: what is opted out and since when, what was opted back in,
// and nothing for a channel whose consent never changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readConsent } from '../../web/src/api/consent.ts';

const never = { state: 'opted_in', opted_out_of: [] };

test('an opted-out channel is a badge with its earliest opt-out, and a channel never changed is none', () => {
  const body = {
    address: '+5215512345678', suppression: null, history: [],
    channels: {
      email: never, whatsapp: never,
      sms: { state: 'opted_out', opted_out_of: [{ sender: '+15550002222', since: '2026-05-02T08:00:00.000Z' }, { sender: '+15550001111', since: '2026-05-01T08:00:00.000Z' }] },
    },
  };

  assert.deepStrictEqual(readConsent(body), { channels: [{ channel: 'sms', optedOut: true, at: '2026-05-01T08:00:00.000Z' }], suppressed: null });
});

test('a channel whose latest change is an opt-in says so, and an email suppression is shown apart', () => {
  const body = {
    address: 'bo@example.org', suppression: { reason: 'bounced', since: '2026-05-01T08:00:00.000Z' },
    channels: { email: never, sms: never, whatsapp: never },
    history: [
      { channel: 'email', change: 'opted_in', at: '2026-05-03T08:00:00.000Z' },
      { channel: 'email', change: 'opted_out', at: '2026-05-02T08:00:00.000Z' },
    ],
  };

  assert.deepStrictEqual(readConsent(body), { channels: [{ channel: 'email', optedOut: false, at: '2026-05-03T08:00:00.000Z' }], suppressed: 'bounced' });
});
