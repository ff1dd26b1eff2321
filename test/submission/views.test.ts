// A submitted message in the views: its bodies are read from the kept MIME when asked
// (app/email-bodies.ts), since the path to the 250 reads only the header block.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import nodemailer from 'nodemailer';
import { get, openAccount, startService } from '../support/service.ts';

/** Submits `content` by nodemailer; the preview of its message. */
async function previewOf(t: TestContext, content: { text: string; html?: string }): Promise<{ statusCode: number; body: string }> {
  const service = await startService(t, { env: { HERALD_SUBMISSION_PORT: '0', HERALD_SUBMISSION_HOST: '127.0.0.1' } });
  const account = await openAccount(service);
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: service.submission?.starttlsPort, auth: { user: 'apikey', pass: account.apiKey } });
  t.after(() => transport.close());
  const info = await transport.sendMail({ from: 'News <news@example.com>', to: 'ana@example.org', subject: 'Receipt', headers: { 'X-Herald-Track': 'none' }, ...content });
  const msgid = /queued as (\S+)$/.exec(info.response)?.[1] ?? '';
  return get(service, `/v1/messages/${msgid}/preview`, account.apiKey);
}

test('the preview of a submitted message shows its HTML part as the client wrote it', async (t) => {
  const preview = await previewOf(t, { text: 'Thank you, Ana.', html: '<p>Thank you, <b>Ana</b>.</p>' });
  assert.deepStrictEqual([preview.statusCode, preview.body], [200, '<p>Thank you, <b>Ana</b>.</p>']);
});

test('the preview of a submitted text-only message shows its text, escaped, in a <pre> (its line break as the MIME carries it)', async (t) => {
  const preview = await previewOf(t, { text: 'Ana & Bo, 2 > 1' });
  assert.deepStrictEqual([preview.statusCode, preview.body], [
    200, '<!doctype html><meta charset="utf-8"><pre style="white-space: pre-wrap; font: 14px/1.5 monospace">Ana &#38; Bo, 2 &#62; 1\n</pre>',
  ]);
});
