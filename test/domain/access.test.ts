import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grantAllows, keyGrant, roleGrant, type RouteAccess } from '../../src/domain/access.ts';

const need = (scope: RouteAccess['scope'], access: RouteAccess['access']): RouteAccess => ({ scope, access });

test('a key passes a route of its scope at read and write level, and an owner-level route only with the account scope too', () => {
  const webhooks = keyGrant(['webhooks']);
  assert.deepStrictEqual(
    [grantAllows(webhooks, need('webhooks', 'read')), grantAllows(webhooks, need('webhooks', 'write')), grantAllows(webhooks, need('webhooks', 'owner'))],
    [true, true, false],
  );
  assert.equal(grantAllows(keyGrant(['webhooks', 'account']), need('webhooks', 'owner')), true);
  assert.equal(grantAllows(keyGrant(['email']), need('sms', 'read')), false);
});

test('a channel route lets in a key holding any channel scope, and no other key', () => {
  assert.deepStrictEqual(
    [keyGrant(['sms']), keyGrant(['whatsapp', 'account']), keyGrant(['webhooks', 'account'])].map((grant) => grantAllows(grant, need('channel', 'read'))),
    [true, true, false],
  );
});

test('users pass by role whatever the scope: viewer reads, developer reads and writes, owner does all', () => {
  const levels = ['read', 'write', 'owner'] as const;
  assert.deepStrictEqual(
    (['viewer', 'developer', 'owner'] as const).map((role) => levels.map((access) => grantAllows(roleGrant(role), need('account', access)))),
    [[true, false, false], [true, true, false], [true, true, true]],
  );
  assert.equal(grantAllows(roleGrant('viewer'), need('channel', 'read')), true);
});
