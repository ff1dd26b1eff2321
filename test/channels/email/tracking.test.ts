// HTML rewriting for open and click tracking: which links are rewritten, where the
// pixel goes, and that nothing else of the sender's HTML changes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CaptureSink } from '../../../src/channels/channel.ts';
import { emailCaptureTransport } from '../../../src/channels/email/capture-transport.ts';
import { smtpRelayTransport } from '../../../src/channels/email/smtp-transport.ts';
import { addTracking, type TrackingTarget } from '../../../src/channels/email/tracking.ts';
import { trackingTokens } from '../../../src/domain/tracking-token.ts';
import { ACCOUNT, FIXED_TIME, MSGID, PAYLOAD, SETTINGS, SIGNING_SECRET, noAttachments, outbound, startSink } from './fixtures.ts';

const tokens = trackingTokens(SIGNING_SECRET);
const TARGET: TrackingTarget = { publicUrl: 'https://herald.example.com', tokens, accountId: ACCOUNT, msgid: MSGID, now: FIXED_TIME };
const BOTH = { opens: true, clicks: true };
const CLICKS = { opens: false, clicks: true };
const OPENS = { opens: true, clicks: false };

const TOKEN = '[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+';
const CLICK_URL = new RegExp(`https://herald\\.example\\.com/t/c/(${TOKEN})`, 'g');

/** The destinations the rewritten links of `html` carry in their tokens, in order. */
async function clickDestinations(html: string): Promise<string[]> {
  const urls: string[] = [];
  for (const [, token] of html.matchAll(CLICK_URL)) {
    const claims = await tokens.verify(token ?? '', 'click', FIXED_TIME);
    urls.push(claims?.url ?? 'not a click token');
  }
  return urls;
}

test('every absolute http(s) link becomes a click URL whose token carries the original destination', async () => {
  const html = '<p><a href="https://example.com/a">a</a> <a href="http://example.com/b?x=1&amp;y=2">b</a></p>';
  const out = await addTracking(html, CLICKS, TARGET);
  assert.deepStrictEqual(await clickDestinations(out), ['https://example.com/a', 'http://example.com/b?x=1&y=2']);
  assert.equal(out.replace(CLICK_URL, 'T'), '<p><a href="T">a</a> <a href="T">b</a></p>');
});

test('a click token names the account and the message of the copy it was made for', async () => {
  const out = await addTracking('<a href="https://example.com/a">a</a>', CLICKS, TARGET);
  const token = [...out.matchAll(CLICK_URL)][0]?.[1] ?? '';
  assert.deepStrictEqual(await tokens.verify(token, 'click', FIXED_TIME), { kind: 'click', accountId: ACCOUNT, msgid: MSGID, url: 'https://example.com/a' });
});

test('mailto:, tel:, anchors and relative links are left as written', async () => {
  const html = '<a href="mailto:help@example.com">m</a><a href="tel:+5215512345678">t</a><a href="#top">a</a><a href="/account">r</a><a name="x">n</a>';
  assert.equal(await addTracking(html, CLICKS, TARGET), html);
});

test('links to herald\'s own unsubscribe and tracking paths are left as written', async () => {
  const html = '<a href="https://herald.example.com/u/abc">unsubscribe</a><a href="https://herald.example.com/t/c/abc">x</a>';
  assert.equal(await addTracking(html, CLICKS, TARGET), html);
});

test('a link longer than 2,048 characters is left as written', async () => {
  const html = `<a href="https://example.com/${'x'.repeat(2030)}">long</a>`;
  assert.equal(await addTracking(html, CLICKS, TARGET), html);
});

test('whitespace around a link is dropped from the destination, as a browser drops it', async () => {
  const out = await addTracking('<a href="  https://example.com/a \n">a</a>', CLICKS, TARGET);
  assert.deepStrictEqual(await clickDestinations(out), ['https://example.com/a']);
});

test('only the href attribute changes: the tag\'s other attributes, case and quoting stay as written', async () => {
  const html = '<A class=btn HREF=\'https://example.com/a\' target="_blank" style="color:red">go</A>';
  const out = await addTracking(html, CLICKS, TARGET);
  assert.equal(out.replace(CLICK_URL, 'T'), '<A class=btn href="T" target="_blank" style="color:red">go</A>');
});

test('the same link twice gets the same click URL', async () => {
  const out = await addTracking('<a href="https://example.com/a">1</a><a href="https://example.com/a">2</a>', CLICKS, TARGET);
  const urls = [...out.matchAll(CLICK_URL)].map((m) => m[0]);
  assert.equal(urls.length, 2);
  assert.equal(urls[0], urls[1]);
});

test('a link inside a comment or a script is not a link and is left as written', async () => {
  const html = '<!-- <a href="https://example.com/c">c</a> --><script>var s = \'<a href="https://example.com/s">\';</script>';
  assert.equal(await addTracking(html, CLICKS, TARGET), html);
});

test('the open pixel goes just before </body>, as a 1×1 image whose token names the message', async () => {
  const out = await addTracking('<html><body><p>Hi</p></body></html>', OPENS, TARGET);
  const match = new RegExp(`^<html><body><p>Hi</p><img src="https://herald\\.example\\.com/t/o/(${TOKEN})" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0"></body></html>$`).exec(out);
  assert.ok(match, out);
  assert.deepStrictEqual(await tokens.verify(match[1] ?? '', 'open', FIXED_TIME), { kind: 'open', accountId: ACCOUNT, msgid: MSGID });
});

test('without a </body> the pixel goes at the very end', async () => {
  const out = await addTracking('<p>Hi</p>', OPENS, TARGET);
  assert.match(out, new RegExp(`^<p>Hi</p><img src="https://herald\\.example\\.com/t/o/${TOKEN}" [^>]+>$`));
});

test('a </body> inside a comment does not place the pixel', async () => {
  const out = await addTracking('<body><!-- </body> --><p>Hi</p></body>', OPENS, TARGET);
  assert.match(out, new RegExp(`^<body><!-- </body> --><p>Hi</p><img src="https://herald\\.example\\.com/t/o/${TOKEN}" [^>]+></body>$`));
});

test('with both on, links are rewritten and the pixel is placed among them in document order', async () => {
  const out = await addTracking('<body><a href="https://example.com/a">a</a></body><p><a href="https://example.com/b">b</a></p>', BOTH, TARGET);
  const shape = out.replace(CLICK_URL, 'T').replace(new RegExp(`https://herald\\.example\\.com/t/o/${TOKEN}`), 'P');
  assert.equal(shape, '<body><a href="T">a</a><img src="P" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0"></body><p><a href="T">b</a></p>');
});

test('with clicks off, links stay exactly as written even when opens are on', async () => {
  const html = '<body><A HREF=\' https://example.com/a \'>a</A></body>';
  const out = await addTracking(html, OPENS, TARGET);
  assert.equal(out.replace(/<img [^>]+>/, ''), html);
});

test('with neither on, the HTML is returned untouched', async () => {
  const html = '<body><a href="https://example.com/a">a</a></body>';
  assert.equal(await addTracking(html, { opens: false, clicks: false }, TARGET), html);
});

test('every byte of the sender\'s HTML outside the rewritten links is kept, odd markup included', async () => {
  const html = '<!DOCTYPE html>\r\n<html><head><style>a{color:red}</style></head><body>\n<p>caf\u00e9 &amp; <b>bold<i>mis</b>nested</i>\u0000'
    + '<a href="https://example.com/a">a</a></p>\n<table><tr><td>x</td></tr></table></body></html>\n';
  const out = await addTracking(html, CLICKS, TARGET);
  assert.equal(out.replace(CLICK_URL, 'https://example.com/a'), html);
});

test('a tracked message is captured byte for byte as an SMTP relay receives it', async (t) => {
  const sink = await startSink(t);
  const relay = smtpRelayTransport({ ...SETTINGS, resolveAttachments: noAttachments, url: `smtp://127.0.0.1:${sink.port}`, tls: { rejectUnauthorized: false } });
  t.after(() => relay.close());
  const captures: string[] = [];
  const memory: CaptureSink = { put: async (capture) => { captures.push(capture.body); } };
  const capture = emailCaptureTransport({ ...SETTINGS, resolveAttachments: noAttachments, sink: memory });
  const message = outbound({ payload: { ...PAYLOAD, html: '<body><a href="https://example.com/a">a</a></body>', tracking: BOTH } });
  const signal = new AbortController().signal;

  await relay.send(message, signal);
  await capture.send(message, signal);
  const relayed = sink.messages[0]?.raw.toString() ?? '';
  assert.match(relayed, /\/t\/o\//);
  assert.equal(captures[0], relayed);
});
