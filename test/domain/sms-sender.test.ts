import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseNewAccount } from '../../src/domain/admin-input.ts';
import { senderOfSend, smsSenderForm } from '../../src/domain/sms-sender.ts';

const NOT_A_SENDER = 'is not a long number (+ and 8 to 15 digits), a short code (3 to 8 digits) '
  + 'or an alphanumeric sender id (1 to 11 letters, digits and inner spaces, with a letter)';

test('each form of sender is told from its text, at the ends of its lengths', () => {
  const senders = ['+12345678', '+123456789012345', '123', '12345678', 'A', 'ACME Shop 1', '2FA'];
  assert.deepStrictEqual(senders.map(smsSenderForm), ['long-number', 'long-number', 'short-code', 'short-code', 'alphanumeric', 'alphanumeric', 'alphanumeric']);
});

const REFUSED: readonly (readonly [string, unknown, string])[] = [
  ['a long number of 7 digits', ['+1234567'], `smsSenders: "+1234567" ${NOT_A_SENDER}`],
  ['a long number of 16 digits', ['+1234567890123456'], `smsSenders: "+1234567890123456" ${NOT_A_SENDER}`],
  ['a short code of 2 digits', ['12'], `smsSenders: "12" ${NOT_A_SENDER}`],
  ['9 digits without a plus', ['123456789'], `smsSenders: "123456789" ${NOT_A_SENDER}`],
  ['an alphanumeric id of 12 characters', ['ACME Shop 12'], `smsSenders: "ACME Shop 12" ${NOT_A_SENDER}`],
  ['an alphanumeric id with a dash', ['ACME-Shop'], `smsSenders: "ACME-Shop" ${NOT_A_SENDER}`],
  ['an alphanumeric id with a trailing space', ['ACME '], `smsSenders: "ACME " ${NOT_A_SENDER}`],
  ['an empty sender', [''], `smsSenders: "" ${NOT_A_SENDER}`],
  ['a sender listed twice', ['ACME', '+34600111222', 'ACME'], 'smsSenders: "ACME" is listed twice'],
  ['21 senders', Array.from({ length: 21 }, (_, i) => `${1000 + i}`), 'smsSenders: must be null or an array of at most 20 strings'],
  ['a sender that is a number', [34600111222], 'smsSenders: must be null or an array of at most 20 strings'],
  ['senders as one string', '+34600111222', 'smsSenders: must be null or an array of at most 20 strings'],
];

for (const [what, smsSenders, detail] of REFUSED) {
  test(`SMS senders with ${what} are refused naming the field`, () => {
    assert.deepStrictEqual(parseNewAccount({ name: 'acme', smsSenders }), { ok: false, rejection: { code: 'invalidField', detail } });
  });
}

test('20 senders are taken, in the order given', () => {
  const senders = Array.from({ length: 20 }, (_, i) => `${1000 + i}`);
  assert.deepStrictEqual(parseNewAccount({ name: 'acme', smsSenders: senders }), { ok: true, value: { name: 'acme', smsSenders: senders } });
});

test('null and [] both clear the senders', () => {
  assert.deepStrictEqual([null, []].map((smsSenders) => parseNewAccount({ name: 'acme', smsSenders })), [
    { ok: true, value: { name: 'acme', smsSenders: null } }, { ok: true, value: { name: 'acme', smsSenders: null } },
  ]);
});

test('a send without from, or with from null, goes from the first sender', () => {
  assert.deepStrictEqual([undefined, null].map((from) => senderOfSend(from, ['ACME', '21121'])), [{ ok: true, value: 'ACME' }, { ok: true, value: 'ACME' }]);
});

test('a send from an account without senders names none, so the transport\'s own is used', () => {
  assert.deepStrictEqual(senderOfSend(undefined, []), { ok: true, value: undefined });
});

test('from must match a sender exactly, case included', () => {
  assert.deepStrictEqual(senderOfSend('acme', ['ACME', '21121']), {
    ok: false, rejection: { code: 'invalidSender', detail: 'from: must be one of this account\'s SMS senders: ACME, 21121' },
  });
});

test('from on an account without senders is refused, saying to leave it out', () => {
  assert.deepStrictEqual(senderOfSend('ACME', []), {
    ok: false, rejection: { code: 'invalidSender', detail: 'from: this account has no SMS senders; leave from out to send from the service\'s own' },
  });
});
