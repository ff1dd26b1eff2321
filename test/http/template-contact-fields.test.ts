// Stored templates with contact fields (issue 24, item 1): the placeholders of a campaign
// body are accepted by POST /v1/email/templates, a transactional send fills the dotted
// names it is given and leaves the rest empty, a campaign fills them per contact, syntax
// errors name part, line, column and tag, and a template a campaign still needs stays.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { emailBody, get, post } from '../support/service.ts';
import { action, campaignBody, campaignWorld, createCampaign, makeContact, makeList, runCampaigns, type CampaignWorld } from '../support/campaigns.ts';
import { T0, iso } from '../support/sent-mail.ts';

const PERSONAL = {
  name: 'Plan news',
  subject: 'News for {{contact.name}}',
  html: '<p>Hi {{contact.name}}</p>\n{{#if contact.attributes.plan}}<p>Your plan: {{contact.attributes.plan}}</p>{{else}}<p>Pick a plan</p>{{/if}}',
  text: 'Hi {{contact.name}} from {{contact.attributes.city}}',
};

async function storeTemplate(w: CampaignWorld, body: Record<string, unknown> = PERSONAL): Promise<string> {
  const res = await post(w.service, '/v1/email/templates', w.account.apiKey, body);
  assert.equal(res.statusCode, 201, res.body);
  return res.json().template_id;
}

const remove = (w: CampaignWorld, id: string) =>
  w.service.http.inject({ method: 'DELETE', url: `/v1/email/templates/${id}`, headers: { authorization: `Bearer ${w.account.apiKey}` } });

async function wireOf(w: CampaignWorld, msgid: string): Promise<{ subject: string | undefined; html: string | false | undefined; text: string | undefined }> {
  const mail = await simpleParser((await get(w.service, `/v1/messages/${msgid}/raw`, w.account.apiKey)).body);
  return { subject: mail.subject, html: mail.html, text: mail.text?.replaceAll('\r\n', '\n').trimEnd() };
}

test('a template with contact fields and a conditional on an attribute is stored as given', async (t) => {
  const w = await campaignWorld(t);
  const res = await post(w.service, '/v1/email/templates', w.account.apiKey, PERSONAL);
  assert.equal(res.statusCode, 201, res.body);
  assert.deepStrictEqual([res.json().subject, res.json().html, res.json().text], [PERSONAL.subject, PERSONAL.html, PERSONAL.text]);
});

test('a block never closed is refused with the interface text and a detail naming part, line, column and tag', async (t) => {
  const w = await campaignWorld(t);
  const res = await post(w.service, '/v1/email/templates', w.account.apiKey, {
    name: 'Broken', html: '<p>Hi {{contact.name}}</p>\n<p>\n  {{#if contact.attributes.plan}}Plan\n</p>',
  });
  assert.deepStrictEqual([res.statusCode, res.json()], [400, { message: 'Incorrect variable syntax', detail: 'html: line 3, column 3: {{#if}} is never closed' }]);
});

test('a transactional send fills the dotted variables it is given and leaves the others empty', async (t) => {
  const w = await campaignWorld(t);
  const id = await storeTemplate(w);
  const sent = await post(w.service, '/v1/email', w.account.apiKey, emailBody({
    body: undefined, subject: 'Hello {{contact.name}}', template_id: id, variables: { 'contact.name': 'Ana' }, tracking: { opens: false, clicks: false },
  }));
  assert.equal(sent.statusCode, 200, sent.body);
  await w.service.worker.drain();
  assert.deepStrictEqual(await wireOf(w, sent.json().to[0].msgid), {
    subject: 'Hello Ana', html: '<p>Hi Ana</p>\n<p>Pick a plan</p>', text: 'Hi Ana from',
  });
});

test('a campaign from the template says each contact\'s name and plan', async (t) => {
  const w = await campaignWorld(t);
  const id = await storeTemplate(w);
  const list = await makeList(w, 'News');
  await makeContact(w, 'ana@example.org', { name: 'Ana', attributes: { plan: 'pro', city: 'Lima' }, lists: [list] });
  await makeContact(w, 'bob@example.org', { name: 'Bob', lists: [list] });
  const campaign = await createCampaign(w, campaignBody([list], { body: undefined, subject: 'News for {{contact.name}}', template_id: id }));
  assert.equal((await action(w, campaign, 'send')).statusCode, 200);
  await runCampaigns(w);
  const recipients = (await get(w.service, `/v1/campaigns/${campaign}/recipients`, w.account.apiKey)).json().recipients as { email: string; msgid: string }[];
  const texts = await Promise.all(recipients.map(async (r) => [r.email, (await wireOf(w, r.msgid)).text?.split('\n')[0]]));
  assert.deepStrictEqual(texts.sort(), [['ana@example.org', 'Hi Ana from Lima'], ['bob@example.org', 'Hi Bob from ']]);
});

/** A stored template and a campaign of it scheduled an hour ahead. */
async function scheduledFrom(w: CampaignWorld): Promise<{ id: string; campaign: string }> {
  const id = await storeTemplate(w);
  const list = await makeList(w, 'News');
  await makeContact(w, 'ana@example.org', { name: 'Ana', lists: [list] });
  const campaign = await createCampaign(w, campaignBody([list], { body: undefined, template_id: id, send_at: iso(T0 + 3_600_000) }));
  assert.equal((await action(w, campaign, 'send')).json().status, 'scheduled');
  return { id, campaign };
}

test('deleting a template a scheduled campaign uses is refused with 409 and the campaign named', async (t) => {
  const w = await campaignWorld(t);
  const { id } = await scheduledFrom(w);
  const res = await remove(w, id);
  assert.deepStrictEqual([res.statusCode, res.json()], [409, {
    message: 'The template is used by a campaign that has not finished', detail: 'used by the campaign "July news"; cancel or finish it first',
  }]);
  assert.equal((await get(w.service, `/v1/email/templates/${id}`, w.account.apiKey)).statusCode, 200);
});

test('a template whose campaign was cancelled can be deleted', async (t) => {
  const w = await campaignWorld(t);
  const { id, campaign } = await scheduledFrom(w);
  assert.equal((await action(w, campaign, 'cancel')).statusCode, 200);
  assert.equal((await remove(w, id)).statusCode, 204);
});

test('a draft campaign does not hold its template', async (t) => {
  const w = await campaignWorld(t);
  const id = await storeTemplate(w);
  const list = await makeList(w, 'News');
  await createCampaign(w, campaignBody([list], { body: undefined, template_id: id }));
  assert.equal((await remove(w, id)).statusCode, 204);
});
