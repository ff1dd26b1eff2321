// What joining and confirming do to a subscription (src/campaigns/consent.ts), without the store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { confirmSubscriptionStatus, joinList } from '../../src/campaigns/consent.ts';

test('joining a single opt-in list confirms at once and sends no confirmation email', () => {
  assert.deepStrictEqual(joinList('single', undefined, 'api'), { status: 'confirmed', sendConfirmation: false });
});

test('joining a double opt-in list leaves the subscription unconfirmed and sends a confirmation email', () => {
  assert.deepStrictEqual(joinList('double', undefined, 'import'), { status: 'unconfirmed', sendConfirmation: true });
});

test('joining again changes nothing, confirmed or not, so no second confirmation email goes out', () => {
  assert.deepStrictEqual(
    [joinList('double', 'unconfirmed', 'api'), joinList('double', 'confirmed', 'api'), joinList('single', 'confirmed', 'import')],
    [undefined, undefined, undefined],
  );
});

test('an API call signs an unsubscribed person up again, an import never does', () => {
  assert.deepStrictEqual(joinList('single', 'unsubscribed', 'api'), { status: 'confirmed', sendConfirmation: false });
  assert.equal(joinList('single', 'unsubscribed', 'import'), undefined);
});

test('the confirmation link confirms an unconfirmed subscription, reports a confirmed one, and finds any other withdrawn', () => {
  assert.deepStrictEqual(
    [confirmSubscriptionStatus('unconfirmed'), confirmSubscriptionStatus('confirmed'), confirmSubscriptionStatus('unsubscribed'), confirmSubscriptionStatus(undefined)],
    ['confirm', 'already-confirmed', 'withdrawn', 'withdrawn'],
  );
});
