// A fallback chain on the message page (issue 25, item 4; docs/fallback.md), in Debian's
// Chromium against a real herald: the WhatsApp message of a chain shows its legs in order,
// the SMS leg waiting, then, after it went, linked to its own message page, which shows the
// same chain; in English and Spanish, axe-core and screenshots at 1280 and 375 px
// (test-output/screenshots/fallback-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { releaseFallbackLegs } from '../../src/app/fallback-release.ts';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { addWhatsappTemplate, openAccount, post, startService } from '../support/service.ts';
import { invite } from '../support/users.ts';
import { steps } from './steps.ts';
import { acceptInvitation, heading } from './page-steps.ts';

test('the message page shows a chain\'s legs as one story, each linked to its message once it went', { skip: skipWithoutChromium, timeout: 120_000 }, async (t) => {
  buildWebIfStale();
  const now = { value: Date.now() };
  const service = await startService(t, { clock: () => now.value });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const account = await openAccount(service, { balance: 50_000, whatsappPrice: 1_000 });
  const template = await addWhatsappTemplate(service, account.id);
  const sent = await post(service, '/v1/whatsapp/sendTemplateMessage', account.apiKey, {
    destination: '+5215512345678', templateId: template.id, params: ['Ana', '1234'], fallback: [{ channel: 'sms', after: '10m', message: { message: 'Your code is 1234' } }],
  });
  assert.equal(sent.statusCode, 200, sent.body);
  const { msgid, fallback } = sent.json() as { msgid: string; fallback: { legs: { msgid: string }[] } };
  const smsMsgid = fallback.legs[1]?.msgid ?? '';
  await service.worker.drain();

  const link = `${base}/app/invitation#${await invite(service, account.id, 'owner@acme.test', 'owner')}`;
  const problems: PageProblems = { errors: [] };
  const step = steps(t);
  const page = await (await openContext(await launchChromium(t), base, problems)).newPage();
  const legs = () => page.locator('.fallback-legs > li').allInnerTexts();

  await step('the WhatsApp message shows its SMS leg waiting, not yet a link', 60_000, async () => {
    await acceptInvitation(page, link);
    await page.goto(`/app/messages/${msgid}`);
    await page.getByRole('heading', { level: 2, name: 'Fallback chain' }).waitFor();
    assert.deepStrictEqual((await legs()).map((text) => text.replace(/\s+/g, ' ').trim()), [
      `Leg 1 · WhatsApp sent ${msgid}`, `Leg 2 · SMS waiting ${smsMsgid}`,
    ]);
    assert.equal(await page.locator('.fallback-legs a').count(), 0);
    await checkPage(page, 'fallback-waiting');
  });

  await step('once the SMS went, its leg links to its page, which shows the same chain; in Spanish too', 60_000, async () => {
    now.value += 600_000;
    assert.deepStrictEqual(await releaseFallbackLegs(service.deps), { released: 1, cancelled: 0 });
    await service.worker.drain();
    await page.reload();
    await page.getByRole('link', { name: smsMsgid }).click();
    await page.waitForURL(`**/app/messages/${smsMsgid}`);
    await heading(page, 'Message');
    await page.getByRole('link', { name: msgid }).waitFor();
    await checkPage(page, 'fallback-released');
    await page.evaluate('localStorage.setItem("herald.language", "es")');
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Cadena de respaldo' }).waitFor();
    await checkPage(page, 'fallback-released-es');
  });
  assert.deepStrictEqual(problems.errors, []);
});
