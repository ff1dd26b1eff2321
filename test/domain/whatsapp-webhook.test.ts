import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseWhatsappWebhook } from '../../src/domain/whatsapp-webhook.ts';

const delivery = (value: Record<string, unknown>) => ({
  object: 'whatsapp_business_account',
  entry: [{ id: '1', changes: [{ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: '106540352242922' }, ...value } }] }],
});

test('a status update gives the wamid, the status and the time in milliseconds', () => {
  const parsed = parseWhatsappWebhook(delivery({ statuses: [{ id: 'wamid.1', status: 'delivered', timestamp: '1767225600', recipient_id: '5215512345678' }] }));
  assert.deepStrictEqual(parsed, { statuses: [{ wamid: 'wamid.1', status: 'delivered', at: 1_767_225_600_000, description: 'delivered' }], inbound: [] });
});

test('a failed status carries Meta\'s error codes, titles and details', () => {
  const parsed = parseWhatsappWebhook(delivery({
    statuses: [{
      id: 'wamid.2', status: 'failed', timestamp: '1767225600',
      errors: [{ code: 131026, title: 'Message undeliverable', message: 'Message undeliverable', error_data: { details: 'Receiver is incapable of receiving this message' } }],
    }],
  }));
  assert.equal(parsed.statuses[0]?.description, 'failed: 131026 Message undeliverable (Receiver is incapable of receiving this message)');
});

test('an inbound message gives the business number, the sender, the wamid and what it says', () => {
  const parsed = parseWhatsappWebhook(delivery({ messages: [{ from: '5215512345678', id: 'wamid.in', timestamp: '1767225600', type: 'text', text: { body: 'hi' } }] }));
  assert.deepStrictEqual(parsed.inbound, [{
    phoneNumberId: '106540352242922', from: '5215512345678', at: 1_767_225_600_000, wamid: 'wamid.in', text: 'hi',
    content: { type: 'text', profile_name: null }, answers: undefined, attachments: [],
  }]);
});

test('unknown statuses, malformed entries and other objects are skipped', () => {
  const parsed = parseWhatsappWebhook({
    object: 'whatsapp_business_account',
    entry: [null, { changes: 'x' }, { changes: [{ value: { statuses: [{ id: 'wamid.3', status: 'deleted' }, { status: 'sent' }, 'x'], messages: [{ from: '5215512345678' }] } }] }],
  });
  assert.deepStrictEqual(parsed, { statuses: [], inbound: [] });
});

test('a body that is not an object parses to nothing', () => {
  assert.deepStrictEqual(parseWhatsappWebhook([1, 2]), { statuses: [], inbound: [] });
});
