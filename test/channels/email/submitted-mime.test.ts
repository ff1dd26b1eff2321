// One copy of a submitted message (channels/email/submitted-mime.ts): the client's bytes,
// plus the Message-ID and List-Unsubscribe it did not write, and tracked HTML when asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { submittedCopy } from '../../../src/channels/email/submitted-mime.ts';

const COPY = { messageId: '<m1@herald.test>', unsubscribeUrl: 'https://herald.test/u/t' };

test('a copy gets the Message-ID and List-Unsubscribe headers the client did not write, and the body is untouched', async () => {
  const mime = Buffer.from('From: news@example.com\r\nSubject: Hi\r\n\r\nbody\r\n');
  assert.equal((await submittedCopy(mime, COPY)).toString(),
    'Message-ID: <m1@herald.test>\r\nList-Unsubscribe: <https://herald.test/u/t>\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\nFrom: news@example.com\r\nSubject: Hi\r\n\r\nbody\r\n');
});

test('a Message-ID and List-Unsubscribe the client wrote are kept, and nothing is added', async () => {
  const mime = Buffer.from('Message-ID: <own@example.com>\r\nList-Unsubscribe: <mailto:u@example.com>\r\nFrom: news@example.com\r\n\r\nbody\r\n');
  assert.equal((await submittedCopy(mime, COPY)).toString(), mime.toString());
});

test('tracking rewrites the HTML part and leaves the text part and the attachment byte for byte', async () => {
  const text = 'Content-Type: text/plain; charset=utf-8\r\n\r\nSee https://example.org/x\r\n';
  const attachment = 'Content-Type: text/html; name=page.html\r\nContent-Disposition: attachment; filename=page.html\r\n\r\n<a href="https://example.org/a">kept</a>\r\n';
  const mime = Buffer.from([
    'From: news@example.com', 'Message-ID: <own@example.com>', 'List-Unsubscribe: <mailto:u@example.com>', 'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b1"', '', '--b1', text.replace(/\r\n$/, ''), '--b1',
    'Content-Type: text/html; charset=iso-8859-1', 'Content-Transfer-Encoding: quoted-printable', '', '<p>Ol=E1 <a href=3D"https://example.org/y">y</a></p>',
    '--b1', attachment.replace(/\r\n$/, ''), '--b1--', '',
  ].join('\r\n'));
  const copy = (await submittedCopy(mime, { ...COPY, html: async (html) => html.replace('https://example.org/y', 'https://herald.test/t/c/token') })).toString();
  assert.ok(copy.includes(text), 'the text part is as written');
  assert.ok(copy.includes(attachment), 'the attached HTML file is as written');
  assert.match(copy, /Content-Type: text\/html; charset=utf-8/);
  assert.match(copy, /<p>Ol=C3=A1 <a href=3D"https:\/\/herald\.test\/t\/c\/token">y<\/a><\/p>/);
});
