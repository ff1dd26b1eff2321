// The marketing pages of the web application (issues 12 and 13), in Debian's Chromium
// against a real herald with the built front end: an owner creates a list, imports a
// small CSV (a bad row refused on its own), finds a contact and its consent, builds a
// segment counted live, makes a campaign of it (its pace per recipient domain set in the
// editor, as the API and the page then have it), sends a test and the campaign, and sees
// its report (counts, opens and clicks over time, links, recipients); a follow-up to the
// non-openers is scheduled and cancelled; a viewer sees everything and can change
// nothing. Every page is checked with axe-core and photographed at 1280 and 375 px
// (test-output/screenshots/campaign-*.png and friends). Each part is a step of its own
// (test/web/steps.ts): a failure names the step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { buildWebIfStale, checkPage, launchChromium, openContext, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { ADMIN_TOKEN, emailBody, get, openAccount, startService } from '../support/service.ts';
import { simpleParser } from 'mailparser';
import { visit } from '../support/sent-mail.ts';
import { steps } from './steps.ts';
import { acceptInvitation, heading } from './page-steps.ts';

// http, so the session cookie is not `Secure` on the test's http://127.0.0.1 origin.
const PUBLIC_URL = 'http://herald.test';
const CSV = 'email,name,city\r\nana@example.org,Ana,Lima\r\nbob@example.org,Bob,Quito\r\nnot-an-address,Nobody,Lima\r\ncid@example.org,Cid,Lima\r\n';

async function nav(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
  await heading(page, name);
}

/** Follows an invitation link (its token after the #) and sets the password: signed in on the overview. */
/** The value of the description term `label` among the `within` elements (each a dt and its dd). */
function described(page: Page, within: string, label: string) {
  return page.locator(within).filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) }).locator('dd');
}
/** The description term's value in the report's counts. */
const stat = (page: Page, label: string) => described(page, '.stat', label);
/** The description term's value among the campaign page's facts. */
const fact = (page: Page, label: string) => described(page, '.facts > div', label);
/** The campaign id of the campaign page or editor the browser is on. */
const campaignIdOf = (page: Page): string => /\/campaigns\/([^/]+)/.exec(new URL(page.url()).pathname)?.[1] ?? assert.fail(`no campaign in ${page.url()}`);

test('an owner makes a list, imports contacts, builds a segment, sends a campaign and reads its report; a viewer changes nothing', { skip: skipWithoutChromium, timeout: 240_000 }, async (t) => {
  buildWebIfStale();
  // One run, on the embedded store: the API beneath the pages has its suites on both stores.
  const service = await startService(t, { worker: true, env: { HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_PUBLIC_URL: PUBLIC_URL } });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  // A verified example.com sender domain, at the interface's default rate of 2 requests a
  // second: the pages' bursts go on the signed-in users' own allowance; the test's own
  // requests with the account's key are spaced to keep within it.
  const account = await openAccount(service, { name: 'Acme', messagesLeft: 1000, rateLimitPerSecond: 2 });
  // The key's requests are spaced 600 ms apart: only what is left of that since the last one is waited.
  let lastKeyRequest = 0;
  const spaced = async (): Promise<void> => {
    const wait = lastKeyRequest + 600 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    lastKeyRequest = Date.now();
  };
  const withKey = async (path: string) => {
    await spaced();
    const res = await get(service, path, account.apiKey);
    assert.equal(res.statusCode, 200, res.body);
    return res;
  };
  const invite = async (email: string, role: string): Promise<string> => {
    const res = await fetch(`${base}/admin/v1/accounts/${account.id}/users`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ email, role }),
    });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { invitation_url: string }).invitation_url;
  };
  const problems: PageProblems = { errors: [] };
  const browser = await launchChromium(t);
  const step = steps(t);
  const owner = await (await openContext(browser, base, problems)).newPage();

  await step('the owner accepts the invitation and is signed in', 90_000, async () => {
    await acceptInvitation(owner, await invite('owner@acme.test', 'owner'));
  });

  await step('a list is made and its CSV import followed to the end, a bad row refused on its own', 90_000, async () => {
    await nav(owner, 'Lists');
    await owner.getByText('No lists yet').waitFor();
    await checkPage(owner, 'lists-empty');
    await owner.getByLabel('Name', { exact: true }).fill('Newsletter');
    await owner.getByRole('button', { name: 'Create list' }).click();
    await heading(owner, 'Newsletter');
    await owner.getByText('No contacts on this list yet').waitFor();
    await owner.getByLabel('CSV file').setInputFiles({ name: 'contacts.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
    await owner.getByRole('button', { name: 'Import', exact: true }).click();
    await owner.getByText('Import finished: 3 created, 0 updated, 1 rejected.').waitFor();
    await owner.getByRole('row', { name: '3 The email address has the wrong structure!' }).waitFor();
    await owner.getByRole('link', { name: 'cid@example.org' }).waitFor();
    const subscribers = await owner.locator('.stat').first().locator('dd').textContent();
    assert.match(subscribers ?? '', /^3/, 'three confirmed subscribers');
    await checkPage(owner, 'list-imported');
  });

  await step('a contact is found by its address, with its consent history', 90_000, async () => {
    await owner.getByLabel('Find by address').fill('BOB@example.org');
    await owner.getByRole('button', { name: 'Find' }).click();
    await owner.getByRole('link', { name: 'ana@example.org' }).waitFor({ state: 'detached' });
    await owner.getByRole('link', { name: 'bob@example.org' }).click();
    await heading(owner, 'bob@example.org');
    await owner.getByRole('row').filter({ hasText: 'import' }).filter({ hasText: 'confirmed' }).waitFor();
    await owner.getByText('"city": "Quito"').waitFor();
    await checkPage(owner, 'contact');
    await nav(owner, 'Lists');
    await owner.getByRole('link', { name: 'Newsletter' }).waitFor();
    await checkPage(owner, 'lists');
    await owner.getByLabel('Address', { exact: true }).fill('nobody@example.org');
    await owner.getByRole('button', { name: 'Find' }).click();
    await owner.getByText('No contact of this account has the address nobody@example.org.').waitFor();
    await owner.getByLabel('Address', { exact: true }).fill('CID@example.org');
    await owner.getByRole('button', { name: 'Find' }).click();
    await heading(owner, 'cid@example.org');
  });

  await step('a segment is counted as it is built and carried into a new campaign', 90_000, async () => {
    await nav(owner, 'Segments');
    await owner.getByRole('group', { name: 'Send to the confirmed subscribers of' }).getByRole('checkbox', { name: /Newsletter/ }).check();
    await owner.getByText('3 contacts in this audience now').waitFor();
    await owner.getByRole('button', { name: 'Add a condition' }).click();
    const condition = owner.getByRole('group', { name: 'Condition 1' });
    await condition.getByLabel('Attribute name').fill('city');
    await condition.getByLabel('Value', { exact: true }).fill('Lima');
    await owner.getByText('2 contacts in this audience now').waitFor();
    await checkPage(owner, 'segments');
    await owner.getByRole('link', { name: 'Create a campaign for this audience' }).click();
    await heading(owner, 'New campaign');
  });

  await step('the campaign is written, saved as a draft and quoted', 90_000, async () => {
    await owner.getByLabel('Campaign name').fill('July news');
    await owner.getByLabel('From address').fill('news@example.com');
    await owner.getByLabel('From name').fill('Acme News');
    await owner.getByLabel('Reply-to address').fill('help@example.com');
    await owner.getByLabel('Reply-to name').fill('Acme Help');
    await owner.getByLabel('Subject').fill('July news for {{contact.name}}');
    await owner.getByRole('textbox', { name: 'Body' }).fill('<p>Hi {{contact.name}} of {{contact.attributes.city}}, <a href="https://shop.example.com/july">see July</a>.</p><p><a href="{{unsubscribe_url}}">Unsubscribe</a></p>');
    // Previewed by herald's renderer as the first contact of the segment (Lima only) would get it.
    await owner.frameLocator('iframe[title="Preview of the message"]').getByText('Hi Ana of Lima, see July.').waitFor();
    await owner.getByText('Subject: July news for Ana').waitFor();
    await owner.getByLabel('Preview as').selectOption({ label: 'Cid <cid@example.org>' });
    await owner.frameLocator('iframe[title="Preview of the message"]').getByText('Hi Cid of Lima, see July.').waitFor();
    await owner.getByLabel('Messages per minute', { exact: true }).fill('600');
    // The per-domain pace starts at herald's default; a figure out of range is refused on the field.
    const domainPace = owner.getByRole('spinbutton', { name: 'Messages per minute to one domain' });
    assert.equal(await domainPace.inputValue(), '600');
    await domainPace.fill('0');
    await owner.getByRole('button', { name: 'Save draft' }).click();
    await owner.getByText('A whole number from 1 to 1,000,000, or choose No limit').waitFor();
    assert.equal(await domainPace.getAttribute('aria-invalid'), 'true');
    await domainPace.fill('120');
    await owner.getByText('2 contacts in this audience now').waitFor();
    await checkPage(owner, 'campaign-editor');
    await owner.getByRole('button', { name: 'Save draft' }).click();
    await heading(owner, 'July news');
    const july = (await withKey(`/v1/campaigns/${campaignIdOf(owner)}`)).json() as { messages_per_minute: number | null; messages_per_minute_per_domain: number | null };
    assert.deepStrictEqual([july.messages_per_minute, july.messages_per_minute_per_domain], [600, 120]);
    assert.equal(await fact(owner, 'Pace per domain').textContent(), '120 messages a minute to any one recipient domain');
    await owner.getByRole('heading', { name: 'Audience now' }).waitFor();
    assert.equal(await stat(owner, 'Recipients').textContent(), '2one message each');
    await checkPage(owner, 'campaign-draft');
  });

  await step('a test is sent, then the campaign itself, confirmed with the quote', 90_000, async () => {
    await owner.getByRole('button', { name: 'Send a test' }).click();
    const testDialog = owner.getByRole('dialog', { name: 'Send a test' });
    await testDialog.getByRole('button', { name: 'Send test' }).click();
    await testDialog.getByRole('status').getByRole('link', { name: 'owner@acme.test' }).waitFor();
    await checkPage(owner, 'campaign-test-sent');
    await testDialog.getByRole('button', { name: 'Close' }).click();
    await owner.getByRole('button', { name: 'Send', exact: true }).click();
    const sendDialog = owner.getByRole('dialog', { name: 'Send this campaign?' });
    await sendDialog.getByText(/herald starts sending now to 2 contacts, and debits 2 messages now/).waitFor();
    await checkPage(owner, 'campaign-send-confirm');
    await sendDialog.getByRole('button', { name: 'Send', exact: true }).click();
    await owner.getByRole('heading', { name: 'Results' }).waitFor();
    await owner.locator('.page-head .badge', { hasText: 'finished' }).waitFor({ timeout: 30_000 });
  });

  await step('ana opens and clicks it, the report counts both, and a tagged send is counted by its tag', 90_000, async () => {
    const world = { service, account, clock: { now: 0 } };
    const recipients = (await withKey('/v1/campaigns?status=finished')).json() as { campaigns: { campaign_id: string }[] };
    const campaignId = recipients.campaigns[0]?.campaign_id ?? assert.fail('no finished campaign');
    const listed = (await withKey(`/v1/campaigns/${campaignId}/recipients`)).json() as { recipients: { email: string; msgid: string }[] };
    const anaMsgid = listed.recipients.find((r) => r.email === 'ana@example.org')?.msgid ?? assert.fail('no message to ana');
    const mail = await simpleParser((await withKey(`/v1/messages/${anaMsgid}/raw`)).body);
    assert.equal(mail.subject, 'July news for Ana');
    const html = typeof mail.html === 'string' ? mail.html : '';
    const pixel = new RegExp(`"${PUBLIC_URL}(/t/o/[^"]+)"`).exec(html)?.[1] ?? assert.fail('no open pixel');
    const link = new RegExp(`"${PUBLIC_URL}(/t/c/[^"]+)"`).exec(html)?.[1] ?? assert.fail('no tracked link');
    await new Promise((resolve) => setTimeout(resolve, 1200));
    assert.equal((await visit(world, 'GET', pixel)).statusCode, 200);
    assert.equal((await visit(world, 'GET', link)).statusCode, 302);
    await owner.reload();
    await heading(owner, 'July news');
    assert.equal(await stat(owner, 'Sent').textContent(), '2');
    assert.match((await stat(owner, 'Opened').textContent()) ?? '', /^1/);
    assert.match((await stat(owner, 'Clicked').textContent()) ?? '', /^1/);
    await owner.getByRole('img', { name: /Human opens and clicks per hour/ }).waitFor();
    await owner.getByRole('rowheader', { name: 'https://shop.example.com/july' }).waitFor();
    await owner.getByRole('link', { name: 'cid@example.org' }).waitFor();
    await checkPage(owner, 'campaign-report');
    // A transactional send tagged `campaign: welcome` is counted by its tag.
    await spaced();
    const tagged = await fetch(`${base}/v1/email`, {
      method: 'POST', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(emailBody({ to: [{ email: 'dan@example.org' }], campaign: 'welcome' })),
    });
    assert.equal(tagged.status, 200, await tagged.clone().text());
    await nav(owner, 'Campaigns');
    await owner.getByRole('row', { name: /July news/ }).getByText('finished').waitFor();
    await owner.getByLabel('The campaign field of POST /v1/email').fill('welcome');
    await owner.getByRole('button', { name: 'Count' }).click();
    assert.equal(await stat(owner, 'Recipients').textContent(), '1messages made');
    await checkPage(owner, 'campaigns');
  });

  await step('a follow-up to who did not open is scheduled, then cancelled', 90_000, async () => {
    await owner.getByRole('link', { name: 'July news' }).click();
    await owner.getByRole('button', { name: 'Follow up' }).click();
    await owner.getByRole('dialog', { name: 'Follow up' }).getByRole('button', { name: 'Create the follow-up draft' }).click();
    await heading(owner, 'July news (not opened)');
    assert.equal(await stat(owner, 'Recipients').textContent(), '1one message each', 'cid, the one who did not open');
    await checkPage(owner, 'campaign-follow-up');
    await owner.getByRole('link', { name: 'Edit' }).click();
    await heading(owner, 'Edit July news (not opened)');
    assert.equal(await owner.getByRole('group', { name: 'Condition 2' }).getByLabel('Condition on').inputValue(), 'not_opened');
    await owner.getByRole('radio', { name: 'At a time' }).check();
    await owner.getByLabel('Send at').fill('2099-01-01T09:00');
    // The follow-up kept the per-domain pace of the campaign it follows; "No limit" lifts it.
    assert.equal(await owner.getByRole('spinbutton', { name: 'Messages per minute to one domain' }).inputValue(), '120');
    await owner.getByRole('checkbox', { name: 'No limit per domain' }).check();
    assert.equal(await owner.getByRole('spinbutton', { name: 'Messages per minute to one domain' }).isDisabled(), true);
    await owner.getByText('1 contact in this audience now').waitFor();
    await checkPage(owner, 'campaign-edit');
    await owner.getByRole('button', { name: 'Save changes' }).click();
    await heading(owner, 'July news (not opened)');
    const followUp = (await withKey(`/v1/campaigns/${campaignIdOf(owner)}`)).json() as { messages_per_minute_per_domain: number | null };
    assert.equal(followUp.messages_per_minute_per_domain, null);
    assert.equal(await fact(owner, 'Pace per domain').textContent(), 'no limit');
    await owner.getByRole('button', { name: 'Schedule' }).click();
    await owner.getByRole('dialog', { name: 'Send this campaign?' }).getByRole('button', { name: 'Schedule' }).click();
    await owner.locator('.page-head .badge', { hasText: 'scheduled' }).waitFor();
    await owner.getByRole('button', { name: 'Cancel campaign' }).click();
    const cancelDialog = owner.getByRole('dialog', { name: 'Cancel this campaign?' });
    await cancelDialog.getByText(/is refunded to the account/).waitFor();
    await cancelDialog.getByRole('button', { name: 'Cancel campaign' }).click();
    await owner.locator('.page-head .badge', { hasText: 'cancelled' }).waitFor();
    await checkPage(owner, 'campaign-cancelled');
  });

  await step('a paced campaign (one message a minute) is paused, resumed and cancelled, each confirmed', 90_000, async () => {
    const lists = (await withKey('/v1/lists')).json() as { lists: { list_id: string }[] };
    await spaced();
    const paced = await fetch(`${base}/v1/campaigns`, {
      method: 'POST', headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Slow news', subject: 'Slow', from: { email: 'news@example.com', name: 'Acme' }, replyTo: { email: 'news@example.com', name: 'Acme' },
        body: '<p>Slowly</p>', lists: lists.lists.map((l) => l.list_id), messages_per_minute: 1,
      }),
    });
    assert.equal(paced.status, 201, await paced.clone().text());
    await owner.goto(`/app/campaigns/${((await paced.json()) as { campaign_id: string }).campaign_id}`);
    await heading(owner, 'Slow news');
    await owner.getByRole('button', { name: 'Send', exact: true }).click();
    await owner.getByRole('dialog', { name: 'Send this campaign?' }).getByRole('button', { name: 'Send', exact: true }).click();
    await owner.locator('.page-head .badge', { hasText: 'running' }).waitFor();
    await owner.getByRole('button', { name: 'Pause' }).click();
    await owner.getByRole('dialog', { name: 'Pause this campaign?' }).getByRole('button', { name: 'Pause' }).click();
    await owner.locator('.page-head .badge', { hasText: 'paused' }).waitFor();
    await checkPage(owner, 'campaign-paused');
    // While paused the content may change, the audience (counted and billed) not.
    await owner.getByRole('link', { name: 'Edit' }).click();
    await heading(owner, 'Edit Slow news');
    await owner.getByText('The audience of a sent campaign is fixed').waitFor();
    assert.equal(await owner.getByRole('group', { name: 'Send to the confirmed subscribers of' }).getByRole('checkbox').first().isDisabled(), true);
    await owner.getByLabel('Subject').fill('Slower news');
    await owner.getByRole('button', { name: 'Save changes' }).click();
    await heading(owner, 'Slow news');
    await owner.getByText('Slower news', { exact: true }).waitFor();
    await owner.getByRole('button', { name: 'Resume' }).click();
    await owner.getByRole('dialog', { name: 'Resume this campaign?' }).getByRole('button', { name: 'Resume' }).click();
    await owner.locator('.page-head .badge', { hasText: 'running' }).waitFor();
    await owner.getByText(/Messages made: \d of 3/).waitFor();
    await checkPage(owner, 'campaign-running');
    await owner.getByRole('button', { name: 'Cancel campaign' }).click();
    await owner.getByRole('dialog', { name: 'Cancel this campaign?' }).getByRole('button', { name: 'Cancel campaign' }).click();
    await owner.locator('.page-head .badge', { hasText: 'cancelled' }).waitFor();
    // What the paced campaign debited and never made into a message comes back, in the ledger.
    const newest = ((await withKey('/v1/ledger')).json() as { entries: { kind: string; messages: number }[] }).entries[0];
    assert.equal(newest?.kind, 'refund');
    assert.ok(newest.messages >= 1 && newest.messages <= 2, `refunded ${newest.messages} of 3`);
  });

  await step('the list’s settings are changed and a contact added by hand', 90_000, async () => {
    await nav(owner, 'Lists');
    await owner.getByRole('link', { name: 'Newsletter' }).click();
    await heading(owner, 'Newsletter');
    await owner.getByLabel('List description').fill('Monthly news');
    await owner.getByRole('button', { name: 'Save list' }).click();
    await owner.getByText('Saved.').waitFor();
    await owner.getByLabel('Address', { exact: true }).fill('eve@example.org');
    await owner.getByLabel('Name (optional)').fill('Eve');
    await owner.getByRole('button', { name: 'Add to the list' }).click();
    await owner.getByText('eve@example.org is on the list (confirmed).').waitFor();
    await owner.getByRole('link', { name: 'eve@example.org' }).waitFor();
    await nav(owner, 'Lists');
    await owner.getByRole('row', { name: /Newsletter Monthly news single 4 0 0/ }).waitFor();
    // Eve leaves the list: confirmed, recorded with its source, and counted as unsubscribed.
    await owner.getByLabel('Address', { exact: true }).fill('eve@example.org');
    await owner.getByRole('button', { name: 'Find' }).click();
    await heading(owner, 'eve@example.org');
    await owner.getByRole('button', { name: 'Unsubscribe from Newsletter' }).click();
    await owner.getByRole('dialog', { name: 'Unsubscribe this contact?' }).getByRole('button', { name: 'Unsubscribe' }).click();
    await owner.getByRole('row', { name: /unsubscribed api/ }).waitFor();
    assert.equal(await owner.getByRole('button', { name: 'Unsubscribe from Newsletter' }).count(), 0);
    await nav(owner, 'Lists');
    await owner.getByRole('row', { name: /Newsletter Monthly news single 3 0 1/ }).waitFor();
  });

  await step('a viewer sees the lists and the report, and has no control that changes anything', 90_000, async () => {
    const viewer = await (await openContext(browser, base, problems)).newPage();
    await acceptInvitation(viewer, await invite('viewer@acme.test', 'viewer'));
    await nav(viewer, 'Lists');
    await viewer.getByText('Your role (viewer) can see the lists but not change them.').waitFor();
    assert.equal(await viewer.getByRole('button', { name: 'Create list' }).count(), 0);
    await viewer.getByRole('link', { name: 'Newsletter' }).click();
    await heading(viewer, 'Newsletter');
    await viewer.getByRole('link', { name: 'ana@example.org' }).waitFor();
    assert.equal(await viewer.getByRole('button', { name: 'Import' }).count(), 0);
    assert.equal(await viewer.getByRole('button', { name: 'Delete list' }).count(), 0);
    await checkPage(viewer, 'list-viewer');
    await nav(viewer, 'Campaigns');
    await viewer.getByText('Your role can see campaigns and their reports but not create, change or send them.').waitFor();
    assert.equal(await viewer.getByRole('link', { name: 'New campaign' }).count(), 0);
    await viewer.getByRole('link', { name: 'July news', exact: true }).click();
    await heading(viewer, 'July news');
    await viewer.getByRole('heading', { name: 'Results' }).waitFor();
    for (const name of ['Send a test', 'Follow up', 'Pause', 'Cancel campaign']) assert.equal(await viewer.getByRole('button', { name }).count(), 0, name);
    await checkPage(viewer, 'campaign-viewer');
    // The API refuses the viewer too: the pages only hide what herald would not do.
    const csrf = await viewer.evaluate(`fetch('/v1/session').then((r) => r.json()).then((s) => s.csrf_token)`) as string;
    const refused = await viewer.evaluate(`fetch('/v1/lists', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': ${JSON.stringify(csrf)} }, body: JSON.stringify({ name: 'x', optin: 'single' }) }).then((r) => r.status)`) as number;
    assert.equal(refused, 401);
  });

  await step('no page had a script error or a CSP violation', 5_000, async () => {
    assert.deepStrictEqual(problems.errors, [], 'no script error and no CSP violation on any page');
  });
});
