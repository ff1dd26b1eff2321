import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseEmailRequest } from '../../src/domain/email-request.ts';
import type { EmailRequest } from '../../src/domain/email-request.ts';
import type { Rejection } from '../../src/domain/result.ts';
import { WIRE_TEXTS } from '../../src/domain/wire-texts.ts';

type Body = Record<string, unknown>;

/** A fresh, fully valid direct-mode request; tests change one thing. */
const valid = (): Body => ({
  to: [{ email: 'ana@example.com' }],
  from: { email: 'news@sender.example', name: 'Sender' },
  replyTo: { email: 'help@sender.example', name: 'Help desk' },
  subject: 'Hello',
  body: '<p>Hi</p>',
});
const withFields = (fields: Body): Body => ({ ...valid(), ...fields });

function accepted(body: unknown): EmailRequest {
  const result = parseEmailRequest(body);
  if (!result.ok) assert.fail(`rejected with ${result.rejection.code}`);
  return result.value;
}
function rejected(body: unknown): Rejection {
  const result = parseEmailRequest(body);
  if (result.ok) assert.fail('accepted');
  return result.rejection;
}
/** Asserts the exact rejection and that its code maps to the spec's literal text. */
function assertRejected(body: unknown, expected: Rejection, text: string): void {
  const rejection = rejected(body);
  assert.deepStrictEqual(rejection, expected);
  assert.equal(WIRE_TEXTS[rejection.code], text);
}

const ERR1 = 'Invalid request, missing parameters. err 1';
const ERR2 = 'Invalid request, missing parameters. err 2';
const UNDEFINED_ADDRESSEES = 'Some addressees have not been defined';
const EMPTY_RECIPIENT = 'a Recipient address is empty!';
const TO_WRONG = 'The recipient address has the wrong structure!';
const FROM_WRONG = 'The from address has the wrong structure!';
const FILENAME_MISSING =
  'One or many attachments are missing the filename parameter which is mandatory for each attachment';
const PATH_MISSING =
  'One or many attachments are missing the path parameter, which is mandatory for each attachment and must be a base64 URI encoded file';

describe('a valid request', () => {
  test('gives every field, with empty cc, bcc and attachments by default', () => {
    assert.deepStrictEqual(accepted(valid()), {
      to: ['ana@example.com'],
      cc: [],
      bcc: [],
      from: { email: 'news@sender.example', name: 'Sender' },
      replyTo: { email: 'help@sender.example', name: 'Help desk' },
      subject: 'Hello',
      content: { mode: 'direct', body: '<p>Hi</p>' },
      attachments: [],
      options: { metadata: null, campaign: null, certified: false, tracking: {} },
    });
  });

  test('keeps recipients trimmed, in request order, duplicates included', () => {
    const request = accepted(
      withFields({
        to: [{ email: ' b@example.com ' }, { email: 'a@example.com' }, { email: 'b@example.com' }],
        options: { cc: [{ email: 'c@example.com' }], bcc: [{ email: 'josé@example.com' }] },
      }),
    );
    assert.deepStrictEqual([request.to, request.cc, request.bcc], [
      ['b@example.com', 'a@example.com', 'b@example.com'],
      ['c@example.com'],
      ['josé@example.com'],
    ]);
  });

  test('accepts a quoted local part', () => {
    assert.deepStrictEqual(accepted(withFields({ to: [{ email: '"a b"@example.com' }] })).to, ['"a b"@example.com']);
  });

  test('ignores unknown fields', () => {
    assert.deepStrictEqual(accepted(withFields({ priority: 'high', tags: [1] })), accepted(valid()));
  });

  test('accepts an empty options object', () => {
    assert.deepStrictEqual(accepted(withFields({ options: {} })).cc, []);
  });

  test('accepts null attachments as none', () => {
    assert.deepStrictEqual(accepted(withFields({ attachments: null })).attachments, []);
  });
});

describe('rule 1: the body must be a plain object', () => {
  for (const [label, body] of [
    ['null', null],
    ['an array', [valid()]],
    ['a string', 'to=a@example.com'],
    ['a number', 42],
    ['undefined', undefined],
  ] as const) {
    test(`rejects ${label} with err 1`, () => {
      assertRejected(body, { code: 'invalidRequest1' }, ERR1);
    });
  }
});

describe('rule 2: options, cc and bcc shapes', () => {
  test('rejects options that is a string', () => {
    assertRejected(withFields({ options: 'cc' }), { code: 'invalidRequest2' }, ERR2);
  });

  test('rejects options that is null', () => {
    assertRejected(withFields({ options: null }), { code: 'invalidRequest2' }, ERR2);
  });

  test('rejects options that is an array', () => {
    assertRejected(withFields({ options: [] }), { code: 'invalidRequest2' }, ERR2);
  });

  test('rejects cc that is an object', () => {
    assertRejected(withFields({ options: { cc: { email: 'c@example.com' } } }), { code: 'invalidRequest2' }, ERR2);
  });

  test('rejects bcc that is null', () => {
    assertRejected(withFields({ options: { bcc: null } }), { code: 'invalidRequest2' }, ERR2);
  });

  test('is checked before the recipients', () => {
    assertRejected({ options: { cc: 'x' } }, { code: 'invalidRequest2' }, ERR2);
  });
});

describe('rule 3: to must be a non-empty array', () => {
  test('rejects a missing to', () => {
    const { to: _, ...body } = valid();
    assertRejected(body, { code: 'recipientMissing' }, 'Recipient missing or empty!');
  });

  test('rejects a null to', () => {
    assertRejected(withFields({ to: null }), { code: 'recipientMissing' }, 'Recipient missing or empty!');
  });

  test('rejects a to that is a single object', () => {
    assertRejected(withFields({ to: { email: 'a@example.com' } }), { code: 'recipientMissing' }, 'Recipient missing or empty!');
  });

  test('rejects an empty to', () => {
    assertRejected(withFields({ to: [] }), { code: 'noRecipients' }, 'No recipients defined');
  });

  test('does not read a to inherited from a polluted Object.prototype', () => {
    const body = withFields({});
    delete body['to'];
    Object.defineProperty(Object.prototype, 'to', { value: [{ email: 'a@example.com' }], configurable: true });
    try {
      assertRejected(body, { code: 'recipientMissing' }, 'Recipient missing or empty!');
    } finally {
      delete (Object.prototype as Record<string, unknown>)['to'];
    }
  });

  test('is checked before from', () => {
    assertRejected({ to: [] }, { code: 'noRecipients' }, 'No recipients defined');
  });
});

describe('rule 4: every addressee is an object with an email key', () => {
  test('rejects a string entry in to', () => {
    assertRejected(withFields({ to: ['a@example.com'] }), { code: 'addresseesUndefined' }, UNDEFINED_ADDRESSEES);
  });

  test('rejects a null entry in to', () => {
    assertRejected(withFields({ to: [null] }), { code: 'addresseesUndefined' }, UNDEFINED_ADDRESSEES);
  });

  test('rejects an entry without email in cc', () => {
    const body = withFields({ options: { cc: [{ mail: 'c@example.com' }] } });
    assertRejected(body, { code: 'addresseesUndefined' }, UNDEFINED_ADDRESSEES);
  });

  test('rejects an array entry in bcc', () => {
    assertRejected(withFields({ options: { bcc: [['b@example.com']] } }), { code: 'addresseesUndefined' }, UNDEFINED_ADDRESSEES);
  });

  test('wins over an empty address in to', () => {
    const body = withFields({ to: [{ email: '' }], options: { bcc: [{}] } });
    assertRejected(body, { code: 'addresseesUndefined' }, UNDEFINED_ADDRESSEES);
  });
});

describe('rule 5: no empty addresses', () => {
  test('rejects an empty email in to', () => {
    assertRejected(withFields({ to: [{ email: '' }] }), { code: 'recipientEmpty' }, EMPTY_RECIPIENT);
  });

  test('rejects a whitespace-only email in cc', () => {
    assertRejected(withFields({ options: { cc: [{ email: '  ' }] } }), { code: 'recipientEmpty' }, EMPTY_RECIPIENT);
  });

  test('rejects an empty email in bcc', () => {
    assertRejected(withFields({ options: { bcc: [{ email: '' }] } }), { code: 'recipientEmpty' }, EMPTY_RECIPIENT);
  });

  test('wins over a malformed address earlier in to', () => {
    const body = withFields({ to: [{ email: 'bad' }, { email: '' }] });
    assertRejected(body, { code: 'recipientEmpty' }, EMPTY_RECIPIENT);
  });
});

describe('rule 6: malformed addresses, field by field', () => {
  test('lists every malformed to entry in request order', () => {
    const body = withFields({
      to: [{ email: 'a@b' }, { email: 'ok@example.com' }, { email: 'Foo <a@example.com>' }],
    });
    const offending = [{ email: 'a@b' }, { email: 'Foo <a@example.com>' }];
    assertRejected(body, { code: 'recipientWrongStructure', offending }, TO_WRONG);
  });

  test('reports a non-string email as its String() form', () => {
    const body = withFields({ to: [{ email: 42 }, { email: null }] });
    const offending = [{ email: '42' }, { email: 'null' }];
    assertRejected(body, { code: 'recipientWrongStructure', offending }, TO_WRONG);
  });

  test('reports an email without a prototype without throwing', () => {
    const body = withFields({ to: [{ email: Object.create(null) as unknown }] });
    assertRejected(body, { code: 'recipientWrongStructure', offending: [{ email: '[object Object]' }] }, TO_WRONG);
  });

  test('reports a malformed cc', () => {
    const body = withFields({ options: { cc: [{ email: 'a@@example.com' }] } });
    const expected = { code: 'ccWrongStructure', offending: [{ email: 'a@@example.com' }] } as const;
    assertRejected(body, expected, 'The cc address has the wrong structure!');
  });

  test('reports a malformed bcc', () => {
    const body = withFields({ options: { bcc: [{ email: 'x@example.com\r\nBcc: y@evil.com' }] } });
    const expected = { code: 'bccWrongStructure', offending: [{ email: 'x@example.com\r\nBcc: y@evil.com' }] } as const;
    assertRejected(body, expected, 'The bcc address has the wrong structure!');
  });

  test('checks to before cc', () => {
    const body = withFields({ to: [{ email: 'bad' }], options: { cc: [{ email: 'worse' }] } });
    assertRejected(body, { code: 'recipientWrongStructure', offending: [{ email: 'bad' }] }, TO_WRONG);
  });

  test('checks cc before bcc', () => {
    const body = withFields({ options: { cc: [{ email: 'bad' }], bcc: [{ email: 'worse' }] } });
    assertRejected(body, { code: 'ccWrongStructure', offending: [{ email: 'bad' }] }, 'The cc address has the wrong structure!');
  });

  test('checks recipients before from', () => {
    const body = { to: [{ email: 'bad' }] };
    assertRejected(body, { code: 'recipientWrongStructure', offending: [{ email: 'bad' }] }, TO_WRONG);
  });
});

describe('rule 7: from', () => {
  test('rejects a missing from', () => {
    const { from: _, ...body } = valid();
    assertRejected(body, { code: 'missingFrom' }, 'Missing from address!');
  });

  test('rejects a from that is a string', () => {
    assertRejected(withFields({ from: 'news@sender.example' }), { code: 'missingFrom' }, 'Missing from address!');
  });

  test('rejects a from without an email key', () => {
    assertRejected(withFields({ from: { name: 'Sender' } }), { code: 'missingFrom' }, 'Missing from address!');
  });

  test('rejects a from without a name, listing its address', () => {
    const body = withFields({ from: { email: 'news@sender.example' } });
    assertRejected(body, { code: 'fromWrongStructure', offending: [{ email: 'news@sender.example' }] }, FROM_WRONG);
  });

  test('rejects a malformed from address', () => {
    const body = withFields({ from: { email: 'Sender <news@sender.example>', name: 'Sender' } });
    const expected = { code: 'fromWrongStructure', offending: [{ email: 'Sender <news@sender.example>' }] } as const;
    assertRejected(body, expected, FROM_WRONG);
  });

  test('rejects a non-string from address as its String() form', () => {
    const body = withFields({ from: { email: true, name: 'Sender' } });
    assertRejected(body, { code: 'fromWrongStructure', offending: [{ email: 'true' }] }, FROM_WRONG);
  });

  test('is checked before replyTo', () => {
    const { replyTo: _, ...body } = withFields({ from: null });
    assertRejected(body, { code: 'missingFrom' }, 'Missing from address!');
  });
});

describe('rule 8: replyTo', () => {
  test('rejects a missing replyTo', () => {
    const { replyTo: _, ...body } = valid();
    assertRejected(body, { code: 'missingReplyTo' }, 'Missing replyTo!');
  });

  test('rejects a null replyTo', () => {
    assertRejected(withFields({ replyTo: null }), { code: 'missingReplyTo' }, 'Missing replyTo!');
  });

  test('rejects a replyTo without a name', () => {
    const body = withFields({ replyTo: { email: 'help@sender.example' } });
    assertRejected(body, { code: 'missingReplyToName' }, 'Missing replyTo name!');
  });

  test('rejects a replyTo without an email', () => {
    assertRejected(withFields({ replyTo: { name: 'Help' } }), { code: 'missingReplyToEmail' }, 'Missing replyTo email!');
  });

  test('rejects a replyTo email that is not a string', () => {
    const body = withFields({ replyTo: { name: 'Help', email: ['help@sender.example'] } });
    assertRejected(body, { code: 'missingReplyToEmail' }, 'Missing replyTo email!');
  });

  test('rejects a malformed replyTo address, without an offending list', () => {
    const body = withFields({ replyTo: { name: 'Help', email: 'help@localhost' } });
    assertRejected(body, { code: 'replyToWrongStructure' }, 'The replyTo address has the wrong structure!');
  });

  test('is checked before subject', () => {
    assertRejected(withFields({ replyTo: {}, subject: '' }), { code: 'missingReplyToName' }, 'Missing replyTo name!');
  });
});

describe('rule 9: subject', () => {
  for (const [label, subject] of [
    ['missing', undefined],
    ['not a string', 7],
    ['empty', ''],
    ['blank', ' \t '],
    ['only line breaks', '\r\n'],
  ] as const) {
    test(`rejects a subject that is ${label}`, () => {
      assertRejected(withFields({ subject }), { code: 'subjectMissing' }, 'Subject missing or empty!');
    });
  }

  test('is checked before body', () => {
    assertRejected(withFields({ subject: '', body: '' }), { code: 'subjectMissing' }, 'Subject missing or empty!');
  });
});

describe('rule 12: header-injection safety', () => {
  test('turns CR LF in the subject into spaces', () => {
    assert.equal(accepted(withFields({ subject: 'Hi\r\nBcc: x@evil.com' })).subject, 'Hi  Bcc: x@evil.com');
  });

  test('turns TAB, NUL and C1 characters in the subject into spaces and trims', () => {
    assert.equal(accepted(withFields({ subject: '\tA\u0000B\u0085C\n' })).subject, 'A B C');
  });

  test('cleans the from name', () => {
    const from = { email: 'news@sender.example', name: 'Sender\nBcc: x@evil.com' };
    assert.deepStrictEqual(accepted(withFields({ from })).from, { email: 'news@sender.example', name: 'Sender Bcc: x@evil.com' });
  });

  test('cleans the replyTo name', () => {
    const replyTo = { email: 'help@sender.example', name: ' Help\r' };
    assert.deepStrictEqual(accepted(withFields({ replyTo })).replyTo, { email: 'help@sender.example', name: 'Help' });
  });

  test('keeps unicode text in the subject', () => {
    assert.equal(accepted(withFields({ subject: 'Olá, José 👋' })).subject, 'Olá, José 👋');
  });
});

describe('rule 10: content', () => {
  test('keeps the direct body exactly as sent', () => {
    assert.deepStrictEqual(accepted(withFields({ body: '  <b>x</b>\n' })).content, { mode: 'direct', body: '  <b>x</b>\n' });
  });

  for (const [label, body] of [
    ['missing', undefined],
    ['not a string', { html: 'x' }],
    ['blank', '  \n'],
  ] as const) {
    test(`rejects a direct body that is ${label}`, () => {
      assertRejected(withFields({ body }), { code: 'bodyMissing' }, 'Body missing or empty!');
    });
  }

  test('treats an empty template_id as direct mode', () => {
    assertRejected(withFields({ template_id: '', body: '' }), { code: 'bodyMissing' }, 'Body missing or empty!');
  });

  test('treats a null template_id as direct mode', () => {
    assert.deepStrictEqual(accepted(withFields({ template_id: null })).content, { mode: 'direct', body: '<p>Hi</p>' });
  });

  test('uses the template, with no variables, when template_id is given', () => {
    const { body: _, ...body } = withFields({ template_id: 'welcome' });
    const content = accepted(body).content;
    assert.deepStrictEqual(content, { mode: 'template', templateId: 'welcome', variables: Object.create(null) });
  });

  test('prefers the template when body is also given', () => {
    const content = accepted(withFields({ template_id: 'welcome', variables: { name: 'Ana' } })).content;
    assert.deepStrictEqual(content, { mode: 'template', templateId: 'welcome', variables: Object.assign(Object.create(null), { name: 'Ana' }) });
  });

  test('rejects a numeric template_id as not found', () => {
    assertRejected(withFields({ template_id: 12 }), { code: 'templateNotFound' }, 'Could not find template');
  });

  test('rejects an object template_id as not found', () => {
    assertRejected(withFields({ template_id: { id: 'x' } }), { code: 'templateNotFound' }, 'Could not find template');
  });

  for (const [label, variables] of [
    ['an array', ['Ana']],
    ['null', null],
    ['a string', 'name=Ana'],
    ['an object with a number value', { name: 'Ana', age: 30 }],
    ['an object with a nested object', { user: { name: 'Ana' } }],
  ] as const) {
    test(`rejects variables that are ${label}`, () => {
      const body = withFields({ template_id: 'welcome', variables });
      assertRejected(body, { code: 'variableSyntax' }, 'Incorrect variable syntax');
    });
  }

  test('ignores malformed variables in direct mode', () => {
    assert.deepStrictEqual(accepted(withFields({ variables: 5 })).content, { mode: 'direct', body: '<p>Hi</p>' });
  });

  test('keeps __proto__ and constructor as plain variables', () => {
    const variables = JSON.parse('{"__proto__":"p","constructor":"c","name":"Ana"}') as unknown;
    const content = accepted(withFields({ template_id: 'welcome', variables })).content;
    assert.equal(content.mode, 'template');
    if (content.mode !== 'template') return;
    assert.equal(Object.getPrototypeOf(content.variables), null);
    assert.deepStrictEqual(Object.entries(content.variables), [['__proto__', 'p'], ['constructor', 'c'], ['name', 'Ana']]);
  });

  test('is checked before attachments', () => {
    assertRejected(withFields({ body: '', attachments: 'x' }), { code: 'bodyMissing' }, 'Body missing or empty!');
  });
});

describe('rule 11: attachments', () => {
  const attach = (...attachments: unknown[]): readonly unknown[] => accepted(withFields({ attachments })).attachments;

  test('keeps a remote https URL', () => {
    assert.deepStrictEqual(attach({ filename: 'report.pdf', path: 'https://files.example.com/r.pdf' }), [
      { filename: 'report.pdf', source: { kind: 'url', url: 'https://files.example.com/r.pdf' } },
    ]);
  });

  test('decodes a base64 data URI with its media type and size', () => {
    assert.deepStrictEqual(attach({ filename: 'hi.txt', path: 'data:text/plain;charset=utf-8;base64,aGVs\nbG8=' }), [
      { filename: 'hi.txt', source: { kind: 'data', contentType: 'text/plain;charset=utf-8', base64: 'aGVsbG8=', size: 5 } },
    ]);
  });

  test('defaults an empty media type to application/octet-stream', () => {
    assert.deepStrictEqual(attach({ filename: 'a.bin', path: 'data:;base64,AAEC' }), [
      { filename: 'a.bin', source: { kind: 'data', contentType: 'application/octet-stream', base64: 'AAEC', size: 3 } },
    ]);
  });

  test('strips directories and control characters from the filename', () => {
    const [spec] = attach({ filename: '..\\..\\etc/pass\r\nwd.txt', path: 'http://example.com/a' });
    assert.deepStrictEqual(spec, { filename: 'passwd.txt', source: { kind: 'url', url: 'http://example.com/a' } });
  });

  test('rejects attachments that are an object', () => {
    const body = withFields({ attachments: { filename: 'a', path: 'https://example.com/a' } });
    assertRejected(body, { code: 'attachmentsNotArray' }, 'Attachments parameter is set but is not an array');
  });

  for (const [label, item] of [
    ['a string entry', 'https://example.com/a'],
    ['a missing filename', { path: 'https://example.com/a' }],
    ['an empty filename', { filename: '', path: 'https://example.com/a' }],
    ['a filename that is only a directory', { filename: 'docs/', path: 'https://example.com/a' }],
    ['a filename of control characters', { filename: '\r\n', path: 'https://example.com/a' }],
  ] as const) {
    test(`rejects ${label} as a missing filename`, () => {
      assertRejected(withFields({ attachments: [item] }), { code: 'attachmentFilenameMissing' }, FILENAME_MISSING);
    });
  }

  test('checks every filename before any path', () => {
    const attachments = [{ filename: 'a.txt' }, { path: 'https://example.com/b' }];
    assertRejected(withFields({ attachments }), { code: 'attachmentFilenameMissing' }, FILENAME_MISSING);
  });

  for (const [label, path] of [
    ['missing', undefined],
    ['empty', ''],
    ['a relative path', 'files/a.pdf'],
    ['a local file URL', 'file:///etc/passwd'],
    ['an ftp URL', 'ftp://example.com/a'],
    ['a data URI without base64', 'data:text/plain,hello'],
    ['a data URI with a wrong alphabet', 'data:text/plain;base64,aGVs*G8='],
    ['a data URI with url-safe characters', 'data:;base64,-_-_'],
    ['a data URI with missing padding', 'data:text/plain;base64,aGVsbG8'],
    ['a data URI with padding in the middle', 'data:text/plain;base64,aG==bG8='],
    ['a data URI decoding to zero bytes', 'data:text/plain;base64,'],
    ['a data URI with a line break in the media type', 'data:text/plain\r\nX: y;base64,aGVsbG8='],
  ] as const) {
    test(`rejects a path that is ${label}`, () => {
      const body = withFields({ attachments: [{ filename: 'a.txt', path }] });
      assertRejected(body, { code: 'attachmentPathMissing' }, PATH_MISSING);
    });
  }
});
