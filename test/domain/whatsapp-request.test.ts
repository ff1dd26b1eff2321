import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  countTemplateParams,
  paramsMatch,
  parseWhatsappRequest,
  renderWhatsappBody,
  validateTemplateBody,
} from '../../src/domain/whatsapp-request.ts';
import { WIRE_TEXTS } from '../../src/domain/wire-texts.ts';
import type { Result } from '../../src/domain/result.ts';

/** The wire text of a rejected result, so each test checks the spec's literal words. */
function rejectionText<T>(result: Result<T>): string {
  assert.equal(result.ok, false);
  return result.ok ? '' : WIRE_TEXTS[result.rejection.code];
}

test('the param count is the highest placeholder index', () => {
  assert.equal(countTemplateParams('Hi {{1}}, your code is {{2}}; again {{1}}'), 2);
});

test('a body without placeholders has 0 params', () => {
  assert.equal(countTemplateParams('Hello'), 0);
  assert.deepStrictEqual(validateTemplateBody('Hello'), { ok: true, value: { paramCount: 0 } });
});

test('consecutive placeholders from 1 are valid, repeats allowed', () => {
  assert.deepStrictEqual(validateTemplateBody('{{2}} then {{1}} and {{2}}'), { ok: true, value: { paramCount: 2 } });
});

test('a gap in the placeholder numbers is invalid', () => {
  assert.equal(rejectionText(validateTemplateBody('{{1}} {{3}}')), 'Incorrect variable syntax');
});

test('a named placeholder is invalid', () => {
  assert.equal(rejectionText(validateTemplateBody('Hi {{name}}')), 'Incorrect variable syntax');
});

test('placeholder 0 is invalid', () => {
  assert.equal(rejectionText(validateTemplateBody('{{0}}')), 'Incorrect variable syntax');
});

test('an unclosed placeholder is invalid', () => {
  assert.equal(rejectionText(validateTemplateBody('Hi {{1')), 'Incorrect variable syntax');
});

test('a placeholder with spaces or a leading zero is invalid', () => {
  assert.equal(rejectionText(validateTemplateBody('{{ 1 }}')), 'Incorrect variable syntax');
  assert.equal(rejectionText(validateTemplateBody('{{01}}')), 'Incorrect variable syntax');
});

test('stray closing braces are invalid', () => {
  assert.equal(rejectionText(validateTemplateBody('{{1}} and 2}}')), 'Incorrect variable syntax');
});

test('single braces are plain text', () => {
  assert.deepStrictEqual(validateTemplateBody('{a} {{1}}'), { ok: true, value: { paramCount: 1 } });
});

test('rendering fills each placeholder with its param', () => {
  assert.equal(renderWhatsappBody('Hi {{1}}, code {{2}}. Bye {{1}}', ['Ana', '1234']), 'Hi Ana, code 1234. Bye Ana');
});

test('rendering inserts dollar patterns literally', () => {
  assert.equal(renderWhatsappBody('Price {{1}}', ['$& $1 $$']), 'Price $& $1 $$');
});

test('paramsMatch compares the count', () => {
  assert.equal(paramsMatch(['a', 'b'], 2), true);
  assert.equal(paramsMatch(['a'], 2), false);
  assert.equal(paramsMatch([], 0), true);
});

test('a valid request gives digits-only destination, template and params', () => {
  const result = parseWhatsappRequest({ destination: '+5215512345678', templateId: 'welcome', params: ['Ana', '42'] });
  assert.deepStrictEqual(result, {
    ok: true,
    value: { destination: '5215512345678', templateId: 'welcome', params: ['Ana', '42'] },
  });
});

test('a destination without + is accepted as is', () => {
  const result = parseWhatsappRequest({ destination: '12345678', templateId: 't' });
  assert.deepStrictEqual(result, { ok: true, value: { destination: '12345678', templateId: 't', params: [] } });
});

test('absent params are an empty list', () => {
  const result = parseWhatsappRequest({ destination: '5215512345678', templateId: 't' });
  assert.deepStrictEqual(result.ok && result.value.params, []);
});

test('a body that is not an object is err 1', () => {
  for (const body of [null, 'x', 1, [], undefined]) {
    assert.equal(rejectionText(parseWhatsappRequest(body)), 'Invalid request, missing parameters. err 1');
  }
});

test('a missing, non-string or malformed destination is rejected', () => {
  for (const destination of [undefined, 5215512345678, '1234567', '1234567890123456', '+52 155 1234 5678', '++5215512345678', '52155123456a']) {
    assert.equal(rejectionText(parseWhatsappRequest({ destination, templateId: 't' })), 'Invalid destination');
  }
});

test('destination is checked before templateId', () => {
  assert.equal(rejectionText(parseWhatsappRequest({})), 'Invalid destination');
});

test('a missing, empty or non-string templateId is rejected', () => {
  for (const templateId of [undefined, '', '  ', 7, null]) {
    assert.equal(rejectionText(parseWhatsappRequest({ destination: '5215512345678', templateId })), 'Could not find template');
  }
});

test('params that are not an array of strings are rejected', () => {
  for (const params of [null, 'Ana', { 0: 'Ana' }, ['Ana', 1], [null]]) {
    assert.equal(
      rejectionText(parseWhatsappRequest({ destination: '5215512345678', templateId: 't', params })),
      'Params do not match the template',
    );
  }
});

test('a body whose prototype is not Object.prototype is err 1', () => {
  const body = Object.create({ destination: '5215512345678', templateId: 't' }) as object;
  assert.equal(rejectionText(parseWhatsappRequest(body)), 'Invalid request, missing parameters. err 1');
});

test('a field planted on Object.prototype is not read', () => {
  Object.defineProperty(Object.prototype, 'destination', { value: '5215512345678', configurable: true });
  try {
    assert.equal(rejectionText(parseWhatsappRequest({ templateId: 't' })), 'Invalid destination');
  } finally {
    delete (Object.prototype as Record<string, unknown>)['destination'];
  }
});
