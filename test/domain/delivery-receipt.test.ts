import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDeliveryReceipt } from '../../src/domain/delivery-receipt.ts';

const receipt = (stat: string): string =>
  `id:0123456789 sub:001 dlvr:001 submit date:2501011200 done date:2501011201 stat:${stat} err:000 text:Hello there`;

test('a DELIVRD receipt means delivered', () => {
  assert.deepStrictEqual(parseDeliveryReceipt(receipt('DELIVRD')), { providerRef: '0123456789', stat: 'DELIVRD', err: '000', status: 'delivered' });
});

test('EXPIRED, DELETED, UNDELIV, REJECTD and UNKNOWN mean failed', () => {
  for (const stat of ['EXPIRED', 'DELETED', 'UNDELIV', 'REJECTD', 'UNKNOWN']) {
    assert.equal(parseDeliveryReceipt(receipt(stat))?.status, 'failed', stat);
  }
});

test('ACCEPTD and ENROUTE change nothing', () => {
  assert.equal(parseDeliveryReceipt(receipt('ACCEPTD'))?.status, null);
  assert.equal(parseDeliveryReceipt(receipt('ENROUTE'))?.status, null);
});

test('a stat the table does not know changes nothing', () => {
  assert.deepStrictEqual(parseDeliveryReceipt('id:7 stat:SKIPPED err:0'), { providerRef: '7', stat: 'SKIPPED', err: '0', status: null });
});

test('field names and the stat are read in any case', () => {
  assert.deepStrictEqual(parseDeliveryReceipt('ID:ab12 Sub:001 Dlvr:001 Stat:delivrd Err:000 Text:hi'), { providerRef: 'ab12', stat: 'DELIVRD', err: '000', status: 'delivered' });
});

test('the quoted message text cannot pose as a field', () => {
  assert.deepStrictEqual(parseDeliveryReceipt('id:42 stat:UNDELIV err:001 text:stat:DELIVRD id:99'), { providerRef: '42', stat: 'UNDELIV', err: '001', status: 'failed' });
});

test('a receipt without err has a null err', () => {
  assert.deepStrictEqual(parseDeliveryReceipt('id:42 stat:DELIVRD'), { providerRef: '42', stat: 'DELIVRD', err: null, status: 'delivered' });
});

test('a text without id or stat is not a receipt', () => {
  assert.equal(parseDeliveryReceipt('Hello, this is a reply'), null);
  assert.equal(parseDeliveryReceipt('id:42 err:000'), null);
  assert.equal(parseDeliveryReceipt('stat:DELIVRD err:000'), null);
});
