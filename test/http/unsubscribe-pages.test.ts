// The unsubscribe pages say exactly what was done, or would be (issue 24): a suppression
// stops all the sender's email; a campaign's link leaves the lists it names and nothing
// else; a second visit changes nothing and says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { get } from '../support/service.ts';
import { sendAndDeliver, sentMail, trackingWorld, visit } from '../support/sent-mail.ts';
import { action, campaignBody, campaignWorld, createCampaign, makeContact, makeList, runCampaigns } from '../support/campaigns.ts';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const FROM_PAGE = 'List-Unsubscribe=One-Click&via=page';

/** The page's heading and first paragraph, tags kept. */
const said = (body: string): string => /<h1>.*<\/h1>\n<p>.*?<\/p>/.exec(body)?.[0] ?? body;

test('the page of a transactional message asks to stop all of the sender\'s email', async (t) => {
  const world = await trackingWorld(t);
  const { unsubscribe } = await sentMail(world, await sendAndDeliver(world));
  const page = await visit(world, 'GET', unsubscribe);
  assert.equal(said(page.body), '<h1>Unsubscribe</h1>\n<p>Stop all email from Example News to <strong>ana@example.org</strong>?</p>');
});

test('confirming on the page says the sender sends no more email', async (t) => {
  const world = await trackingWorld(t);
  const { unsubscribe } = await sentMail(world, await sendAndDeliver(world));
  const res = await visit(world, 'POST', unsubscribe, { headers: FORM, payload: FROM_PAGE });
  assert.equal(said(res.body), '<h1>You are unsubscribed</h1>\n<p><strong>ana@example.org</strong> will receive no more email from Example News.</p>');
});

test('confirming a second time says nothing was changed', async (t) => {
  const world = await trackingWorld(t);
  const { unsubscribe } = await sentMail(world, await sendAndDeliver(world));
  await visit(world, 'POST', unsubscribe, { headers: FORM, payload: FROM_PAGE });
  const again = await visit(world, 'POST', unsubscribe, { headers: FORM, payload: FROM_PAGE });
  assert.equal(said(again.body), '<h1>Already unsubscribed</h1>\n<p><strong>ana@example.org</strong> was already unsubscribed. Nothing was changed.</p>');
});

test('revisiting the link of a suppressed address says nothing was changed, without a form', async (t) => {
  const world = await trackingWorld(t);
  const { unsubscribe } = await sentMail(world, await sendAndDeliver(world));
  await visit(world, 'POST', unsubscribe, { headers: FORM, payload: 'List-Unsubscribe=One-Click' });
  const page = await visit(world, 'GET', unsubscribe);
  assert.equal(said(page.body), '<h1>Already unsubscribed</h1>\n<p><strong>ana@example.org</strong> already receives no email from Example News. Nothing was changed.</p>');
  assert.doesNotMatch(page.body, /<form/);
});

/** bob on News and Other; a campaign to News; bob's unsubscribe link. */
async function campaignLink(t: Parameters<typeof campaignWorld>[0]) {
  const w = await campaignWorld(t);
  const news = await makeList(w, 'News');
  const other = await makeList(w, 'Other');
  await makeContact(w, 'bob@example.org', { name: 'Bob', lists: [news, other] });
  const campaign = await createCampaign(w, campaignBody([news]));
  assert.equal((await action(w, campaign, 'send')).statusCode, 200);
  await runCampaigns(w);
  const recipients = await get(w.service, `/v1/campaigns/${campaign}/recipients`, w.account.apiKey);
  const msgid = recipients.json().recipients[0].msgid as string;
  return { w, link: (await sentMail(w, msgid)).unsubscribe };
}

test('a campaign\'s page names the list it leaves and says other email still arrives', async (t) => {
  const { w, link } = await campaignLink(t);
  const page = await visit(w, 'GET', link);
  assert.equal(said(page.body), '<h1>Unsubscribe</h1>\n<p>Remove <strong>bob@example.org</strong> from the list <strong>News</strong> of Example News? Other email from Example News still arrives.</p>');
});

test('confirming a campaign\'s page names the lists left, every list when asked', async (t) => {
  const { w, link } = await campaignLink(t);
  const res = await visit(w, 'POST', link, { headers: FORM, payload: `${FROM_PAGE}&scope=all` });
  assert.equal(said(res.body), '<h1>You are unsubscribed</h1>\n<p><strong>bob@example.org</strong> has left the lists <strong>News</strong>, <strong>Other</strong>. Other email from Example News still arrives.</p>');
});

test('revisiting a campaign\'s link after leaving says the list was already left, without a form', async (t) => {
  const { w, link } = await campaignLink(t);
  await visit(w, 'POST', link, { headers: FORM, payload: FROM_PAGE });
  const page = await visit(w, 'GET', link);
  assert.equal(said(page.body), '<h1>Already unsubscribed</h1>\n<p><strong>bob@example.org</strong> has already left the list <strong>News</strong> of Example News. Nothing was changed.</p>');
  assert.doesNotMatch(page.body, /<form/);
  const again = await visit(w, 'POST', link, { headers: FORM, payload: FROM_PAGE });
  assert.equal(said(again.body), '<h1>Already unsubscribed</h1>\n<p><strong>bob@example.org</strong> was already unsubscribed. Nothing was changed.</p>');
});

test('a reader whose browser asks for Spanish reads the campaign\'s page and its answer in Spanish', async (t) => {
  const { w, link } = await campaignLink(t);
  const spanish = { 'accept-language': 'es-MX,es;q=0.9,en;q=0.5' };
  const page = await visit(w, 'GET', link, { headers: spanish });
  assert.match(page.body, /^<!doctype html>\n<html lang="es">/);
  assert.equal(said(page.body), '<h1>Darse de baja</h1>\n<p>¿Quitar <strong>bob@example.org</strong> de la lista <strong>News</strong> de Example News? El resto del correo de Example News seguirá llegando.</p>');
  assert.match(page.body, /Salir también de todas las demás listas de Example News/);
  assert.match(page.body, /<button type="submit">Darse de baja<\/button>/);
  const res = await visit(w, 'POST', link, { headers: { ...FORM, ...spanish }, payload: `${FROM_PAGE}&scope=all` });
  assert.equal(said(res.body), '<h1>Se ha dado de baja</h1>\n<p><strong>bob@example.org</strong> ha salido de las listas <strong>News</strong>, <strong>Other</strong>. El resto del correo de Example News seguirá llegando.</p>');
});
