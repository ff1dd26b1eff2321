// A campaign from a stored template with contact fields (issue 24, items 1 and 4), in
// Debian's Chromium against a real herald with the built front end, by keyboard only
// (Tab, Enter, Space, arrows and typing; no mouse): an owner writes a template with
// {{contact.name}} and {{#if contact.attributes.plan}}, breaks it and sees herald's
// line and column while the last good preview stays, is asked before leaving with the
// unsaved edit, saves it, makes a campaign of it for a small list and sends it; each
// contact's mail says its own name. The campaign page names the template, both pages
// are checked in Spanish too, and the template, refused while a scheduled campaign uses it,
// is deleted once that one is cancelled. axe-core and screenshots by
// checkPage (test-output/screenshots/template-campaign-*.png).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { simpleParser } from 'mailparser';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { ADMIN_TOKEN, get, openAccount, post, startService } from '../support/service.ts';
import { PASSWORD } from '../support/users.ts';
import { steps } from './steps.ts';
import { heading } from './page-steps.ts';

// http, so the session cookie is not `Secure` on the test's http://127.0.0.1 origin.
const PUBLIC_URL = 'http://herald.test';
const HTML = '<p>Hi {{contact.name}}</p>\n{{#if contact.attributes.plan}}<p>Your plan: {{contact.attributes.plan}}</p>{{/if}}';

// Runs in the page (this file is type-checked without the DOM's types).
const hasFocus = (element: unknown): boolean => element === (globalThis as { document?: { activeElement: unknown } }).document?.activeElement;

/** Presses Tab until `target` has the focus (it wraps round the page), as a keyboard user moves. */
async function tabTo(page: Page, target: Locator): Promise<void> {
  await target.waitFor();
  for (let presses = 0; presses < 150; presses++) {
    if (await target.evaluate(hasFocus)) return;
    await page.keyboard.press('Tab');
  }
  assert.fail(`Tab never reached ${target.toString()}`);
}

/** Tabs to a field and types `text` over what it holds. */
async function typeInto(page: Page, target: Locator, text: string): Promise<void> {
  await tabTo(page, target);
  await page.keyboard.press('Control+A');
  await page.keyboard.type(text);
}

/** Tabs to a link or button and presses Enter. */
async function press(page: Page, target: Locator): Promise<void> {
  await tabTo(page, target);
  await page.keyboard.press('Enter');
}

const mainNav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
/** The value of the campaign page's fact `label`. */
const fact = (page: Page, label: string) => page.locator('.facts > div').filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
const preview = (page: Page) => page.frameLocator('iframe[title="HTML preview"]');

test('by keyboard only, a template with contact fields is written, refused with its line and column, saved and sent as a campaign that names each contact', { skip: skipWithoutChromium, timeout: 120_000 }, async (t) => {
  buildWebIfStale();
  const service = await startService(t, { worker: true, env: { HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_PUBLIC_URL: PUBLIC_URL } });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const account = await openAccount(service, { name: 'Acme', messagesLeft: 100 });
  const withKey = async (path: string, body?: unknown) => {
    const res = body === undefined ? await get(service, path, account.apiKey) : await post(service, path, account.apiKey, body);
    assert.ok(res.statusCode < 300, res.body);
    return res.json();
  };
  const list = (await withKey('/v1/lists', { name: 'Plan news list', optin: 'single' })).list_id as string;
  await withKey('/v1/contacts', { email: 'ana@example.org', name: 'Ana', attributes: { plan: 'pro' }, lists: [list] });
  await withKey('/v1/contacts', { email: 'bob@example.org', name: 'Bob', lists: [list] });
  const invited = await fetch(`${base}/admin/v1/accounts/${account.id}/users`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', role: 'owner' }),
  });
  assert.equal(invited.status, 201, await invited.clone().text());
  const invitation = ((await invited.json()) as { invitation_url: string }).invitation_url;

  const problems: PageProblems = { errors: [] };
  const browser = await launchChromium(t);
  const step = steps(t);
  const owner = await (await openContext(browser, base, problems)).newPage();
  let campaignId = '';

  await step('the owner sets a password from the invitation and is signed in', 30_000, async () => {
    await owner.goto(`/app/invitation${new URL(invitation).hash}`);
    await typeInto(owner, owner.getByLabel('New password'), PASSWORD);
    await typeInto(owner, owner.getByLabel('Repeat the password'), PASSWORD);
    await owner.keyboard.press('Enter');
    await heading(owner, 'Overview');
  });

  await step('a template with contact fields renders the sample contact in the preview', 30_000, async () => {
    await press(owner, mainNav(owner, 'Templates'));
    await heading(owner, 'Templates');
    await press(owner, owner.getByRole('link', { name: 'New email template' }));
    await heading(owner, 'New email template');
    await typeInto(owner, owner.getByLabel('Name', { exact: true }), 'Plan news');
    await typeInto(owner, owner.getByRole('textbox', { name: 'HTML' }), HTML);
    await typeInto(owner, owner.getByRole('textbox', { name: 'Sample variables' }), 'contact.name=Ana\ncontact.attributes.plan=pro');
    await preview(owner).getByText('Your plan: pro').waitFor();
    assert.equal(await preview(owner).locator('p').first().textContent(), 'Hi Ana');
  });

  await step('a block left open is refused with its line and column while the last good preview stays', 30_000, async () => {
    await tabTo(owner, owner.getByRole('textbox', { name: 'HTML' }));
    await owner.keyboard.press('Control+End');
    await owner.keyboard.type('\n{{#if contact.name}}');
    const alert = owner.getByRole('alert').filter({ hasText: 'Incorrect variable syntax' });
    await alert.getByText('html: line 3, column 1: {{#if}} is never closed').waitFor();
    assert.equal(await alert.locator('p').first().textContent(), 'Incorrect variable syntax — html: line 3, column 1: {{#if}} is never closed');
    await owner.getByText('The last preview that rendered, until the error is fixed.').waitFor();
    assert.equal(await preview(owner).locator('p').first().textContent(), 'Hi Ana');
    assert.equal(await owner.getByRole('button', { name: 'Save template' }).isDisabled(), true);
    await checkPage(owner, 'template-campaign-refused');
  });

  await step('leaving with the unsaved edit asks first, and staying keeps it', 30_000, async () => {
    const asked = new Promise<string>((resolve) => owner.once('dialog', (dialog) => { resolve(dialog.message()); void dialog.dismiss(); }));
    await press(owner, mainNav(owner, 'Overview'));
    assert.equal(await asked, 'This template has unsaved changes. Leave the page anyway? They stay kept in this tab.');
    await heading(owner, 'New email template');
    assert.equal(await owner.getByRole('textbox', { name: 'HTML' }).inputValue(), `${HTML}\n{{#if contact.name}}`);
  });

  await step('the block closed, the template is saved', 30_000, async () => {
    await tabTo(owner, owner.getByRole('textbox', { name: 'HTML' }));
    await owner.keyboard.press('Control+End');
    await owner.keyboard.type('{{/if}}');
    await owner.getByRole('alert').filter({ hasText: 'Incorrect variable syntax' }).waitFor({ state: 'detached' });
    await press(owner, owner.getByRole('button', { name: 'Save template' }));
    await heading(owner, 'Plan news');
    await owner.getByText('template_id', { exact: true }).waitFor();
    await checkPage(owner, 'template-campaign-editor');
  });

  await step('a campaign from the template is saved for the small list, and its page names the template', 45_000, async () => {
    await press(owner, mainNav(owner, 'Campaigns'));
    await heading(owner, 'Campaigns');
    await press(owner, owner.getByRole('link', { name: 'New campaign' }));
    await heading(owner, 'New campaign');
    await typeInto(owner, owner.getByLabel('Campaign name'), 'Plan news, June');
    await typeInto(owner, owner.getByLabel('From address'), 'news@example.com');
    await typeInto(owner, owner.getByLabel('From name'), 'Acme News');
    await typeInto(owner, owner.getByLabel('Reply-to address'), 'help@example.com');
    await typeInto(owner, owner.getByLabel('Reply-to name'), 'Acme Help');
    await typeInto(owner, owner.getByLabel('Subject', { exact: true }), 'News for {{contact.name}}');
    await tabTo(owner, owner.getByRole('radio', { name: 'Write the body' }));
    await owner.keyboard.press('ArrowRight');
    assert.equal(await owner.getByRole('radio', { name: 'Use an email template' }).isChecked(), true);
    const choice = owner.getByRole('combobox', { name: 'Template' });
    await choice.locator('option', { hasText: 'Plan news' }).waitFor({ state: 'attached' });
    await tabTo(owner, choice);
    await owner.keyboard.press('ArrowDown');
    assert.equal(await choice.locator('option:checked').textContent(), 'Plan news');
    await tabTo(owner, owner.getByRole('group', { name: 'Send to the confirmed subscribers of' }).getByRole('checkbox', { name: /Plan news list/ }));
    await owner.keyboard.press('Space');
    await owner.getByText('2 contacts in this audience now').waitFor();
    await press(owner, owner.getByRole('button', { name: 'Save draft' }));
    await heading(owner, 'Plan news, June');
    campaignId = /\/campaigns\/([^/]+)/.exec(new URL(owner.url()).pathname)?.[1] ?? assert.fail(`no campaign in ${owner.url()}`);
    await fact(owner, 'Content').getByRole('link', { name: 'Plan news' }).waitFor();
    assert.equal(await fact(owner, 'Content').textContent(), 'the template Plan news');
    await checkPage(owner, 'template-campaign-draft');
  });

  await step('the campaign is sent, confirmed with its template named, and each mail says its contact\'s name', 45_000, async () => {
    await press(owner, owner.getByRole('button', { name: 'Send', exact: true }));
    const confirm = owner.getByRole('dialog', { name: 'Send this campaign?' });
    await confirm.getByText(/herald starts sending now to 2 contacts, and debits 2 messages now/).waitFor();
    assert.equal(await confirm.getByText(/^Content: the template/).textContent(), 'Content: the template Plan news');
    await press(owner, confirm.getByRole('button', { name: 'Send', exact: true }));
    await owner.locator('.page-head .badge', { hasText: 'finished' }).waitFor({ timeout: 30_000 });
    const { recipients } = await withKey(`/v1/campaigns/${campaignId}/recipients`) as { recipients: { email: string; msgid: string }[] };
    const mails = await Promise.all(recipients.map(async (r) => {
      const mail = await simpleParser((await get(service, `/v1/messages/${r.msgid}/raw`, account.apiKey)).body);
      return [r.email, mail.subject, mail.text?.split('\n').filter((line) => line.trim() !== '').slice(0, 2).join(' | ')];
    }));
    assert.deepStrictEqual(mails.sort(), [
      ['ana@example.org', 'News for Ana', 'Hi Ana | Your plan: pro'],
      ['bob@example.org', 'News for Bob', 'Hi Bob | You receive this email because you subscribed. Unsubscribe'],
    ]);
  });

  await step('in Spanish, the campaign page and the template editor speak Spanish and stay accessible', 45_000, async () => {
    await owner.evaluate(`localStorage.setItem('herald.language', 'es')`);
    await owner.reload();
    await heading(owner, 'Plan news, June');
    // The template's name arrives in its own request; until then the fact says it is loading.
    await fact(owner, 'Contenido').getByRole('link', { name: 'Plan news' }).waitFor();
    assert.equal(await fact(owner, 'Contenido').textContent(), 'la plantilla Plan news');
    await checkPage(owner, 'template-campaign-sent-es');
    await press(owner, fact(owner, 'Contenido').getByRole('link', { name: 'Plan news' }));
    await heading(owner, 'Plan news');
    await owner.getByRole('button', { name: 'Guardar cambios' }).waitFor();
    await checkPage(owner, 'template-campaign-editor-es');
    await owner.evaluate(`localStorage.setItem('herald.language', 'en')`);
    await owner.reload();
    await heading(owner, 'Plan news');
  });

  await step('the template is not deleted while a scheduled campaign uses it, then is once that one is cancelled, and the first campaign’s page says it was deleted', 30_000, async () => {
    const templateId = /\/templates\/([^/]+)/.exec(new URL(owner.url()).pathname)?.[1] ?? assert.fail(`no template in ${owner.url()}`);
    const later = (await withKey('/v1/campaigns', {
      name: 'Plan news, July', subject: 'July for {{contact.name}}', from: { email: 'news@example.com', name: 'Acme News' }, replyTo: { email: 'help@example.com', name: 'Acme Help' },
      template_id: templateId, lists: [list], send_at: new Date(Date.now() + 86_400_000).toISOString(),
    })).campaign_id as string;
    assert.equal((await withKey(`/v1/campaigns/${later}/send`, {})).status, 'scheduled');
    await press(owner, owner.getByRole('button', { name: 'Delete template' }));
    const confirm = owner.getByRole('dialog', { name: 'Delete this template?' });
    await press(owner, confirm.getByRole('button', { name: 'Delete', exact: true }));
    await confirm.getByRole('alert').getByText('The template is used by a campaign that has not finished — used by the campaign "Plan news, July"; cancel or finish it first').waitFor();
    await checkPage(owner, 'template-campaign-delete-refused');
    assert.equal((await withKey(`/v1/campaigns/${later}/cancel`, {})).status, 'cancelled');
    await press(owner, confirm.getByRole('button', { name: 'Delete', exact: true }));
    await heading(owner, 'Templates');
    await owner.getByText('No email templates yet').waitFor();
    await owner.goto(`/app/campaigns/${campaignId}`);
    await heading(owner, 'Plan news, June');
    await fact(owner, 'Content').getByText('a template deleted since,').waitFor();
  });

  await step('no page had a script error or a CSP violation', 5_000, async () => {
    assert.deepStrictEqual(problems.errors, []);
  });
});
