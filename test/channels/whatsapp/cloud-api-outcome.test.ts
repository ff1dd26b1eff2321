// The classification table, answer by answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cloudApiOutcome } from '../../../src/channels/whatsapp/cloud-api-outcome.ts';

const PEER = 'graph.facebook.com';
const http = (status: number, body: unknown) => ({ kind: 'http' as const, status, body: typeof body === 'string' ? body : JSON.stringify(body) });
const metaError = (code: number, message: string, subcode?: number) => ({ error: { message, type: 'OAuthException', code, ...(subcode === undefined ? {} : { error_subcode: subcode }) } });

test('a 200 without a message id is accepted without a providerRef, since Meta took it', () => {
  assert.deepStrictEqual(cloudApiOutcome(http(200, { messaging_product: 'whatsapp' }), PEER), { kind: 'accepted', peer: PEER, response: 'HTTP 200 without a message id' });
});

test('error 131000 (something went wrong) is deferred whatever the status', () => {
  assert.equal(cloudApiOutcome(http(400, metaError(131000, 'Something went wrong')), PEER).kind, 'deferred');
});

test('error 100 subcode 33 (unknown phone number id) fails without leaving the house', () => {
  assert.deepStrictEqual(cloudApiOutcome(http(400, metaError(100, 'Unsupported post request. Object with ID does not exist', 33)), PEER), {
    kind: 'failed', peer: PEER, leftTheHouse: false, response: 'HTTP 400 error 100/33: Unsupported post request. Object with ID does not exist',
  });
});

test('error 100 without that subcode is the message\'s fault: failed after leaving the house', () => {
  const outcome = cloudApiOutcome(http(400, metaError(100, 'Invalid parameter')), PEER);
  assert.deepStrictEqual(outcome, { kind: 'failed', peer: PEER, leftTheHouse: true, response: 'HTTP 400 error 100: Invalid parameter' });
});

test('a 404 without a Meta body fails after leaving the house, with the body text', () => {
  assert.deepStrictEqual(cloudApiOutcome(http(404, 'Not Found'), PEER), { kind: 'failed', peer: PEER, leftTheHouse: true, response: 'HTTP 404: Not Found' });
});

test('a 502 from a proxy with an HTML page is deferred, its text on one line', () => {
  assert.deepStrictEqual(cloudApiOutcome(http(502, '<html>\n<body>Bad Gateway</body>\n</html>'), PEER), {
    kind: 'deferred', peer: PEER, response: 'HTTP 502: <html> <body>Bad Gateway</body> </html>',
  });
});

test('a very long answer is cut to 1000 characters', () => {
  const outcome = cloudApiOutcome(http(400, 'x'.repeat(5000)), PEER);
  assert.equal(outcome.response.length, 1000);
  assert.ok(outcome.response.endsWith('…'));
});

test('no answer is deferred with the reason', () => {
  assert.deepStrictEqual(cloudApiOutcome({ kind: 'no-answer', reason: 'network error: ECONNRESET' }, PEER), { kind: 'deferred', peer: PEER, response: 'network error: ECONNRESET' });
});
