// Which of herald's refusals end the web application's session (web/src/api/http.ts
// endsSession): the answers for "no valid credentials", never a refusal of one action.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endsSession } from '../../web/src/api/http.ts';

test('an expired session’s 401 ends the account’s session', () => {
  assert.equal(endsSession('account', 401, 'Session expired, sign in again'), true);
});

test('a request without credentials (the cookie gone after a sign-out elsewhere) ends the account’s session', () => {
  assert.equal(endsSession('account', 403, 'No API Key sent'), true);
});

test('a 401 refusing one action, as Insufficient balance, does not end the account’s session', () => {
  assert.equal(endsSession('account', 401, 'Insufficient balance'), false);
});

test('an address outside the allow-list does not end the account’s session: signing in again would not help', () => {
  assert.equal(endsSession('account', 403, 'IP Not Allowed '), false);
});

test('the operator API’s 401 ends the console’s session', () => {
  assert.equal(endsSession('operator', 401, 'Admin token missing or invalid'), true);
});
