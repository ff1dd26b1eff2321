// Every page of the web application in English and in Spanish (issue 24, item 7), in
// Debian's Chromium against a real herald: an owner (and the operator, for the console)
// visits each route of web/src/app.tsx at 1280 and 375 px in each language, axe-core
// finds nothing serious, and <html lang> follows the language. Then the profile's
// language select: it switches at once, is stored for the user, and a browser that never
// chose adopts it at sign-in. One browser, one context per language; the only screenshots
// are the README's (test-output/screenshots/i18n-*.png). It asserts no page's words, so it
// holds while pages are still being translated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertAccessible, buildWebIfStale, launchChromium, openContext, SCREENSHOTS, settle, skipWithoutChromium, type PageProblems } from '../support/browser.ts';
import { ADMIN_TOKEN, emailBody, openAccount, post, startService } from '../support/service.ts';
import { PASSWORD } from '../support/users.ts';
import { steps } from './steps.ts';

const LANGUAGES = ['en', 'es'] as const;
const MISSING = '00000000-0000-4000-8000-000000000000';

/** A context in `language` (the application's own choice, as the language menu stores it), signed in by the API. */
async function languageContext(browser: Browser, base: string, problems: PageProblems, language: string): Promise<BrowserContext> {
  const context = await openContext(browser, base, problems);
  // Not in the sandboxed previews (no storage there).
  await context.addInitScript(`try { localStorage.setItem('herald.language', ${JSON.stringify(language)}); } catch {}`);
  return context;
}

/**
 * Opens `path` under /app as a click on a link would (the application's router, no reload:
 * a reload per page would double the sweep's time), waits for the new page's h1 and quiet,
 * then checks <html lang> and axe at both widths. `load`: a full load instead (the first page
 * after signing in, so the application reads the new session).
 */
async function sweep(page: Page, path: string, language: string, load = false): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 900 });
  if (!load && new URL(page.url()).pathname.startsWith('/app')) {
    await page.evaluate('document.querySelectorAll("h1").forEach((h) => h.setAttribute("data-left", ""))');
    await page.evaluate(`history.pushState(null, '', ${JSON.stringify(`/app${path}`)}); dispatchEvent(new PopStateEvent('popstate'))`);
  } else {
    await page.goto(`/app${path}`);
  }
  await page.locator('h1:not([data-left])').first().waitFor();
  await settle(page);
  assert.deepStrictEqual(
    [await page.evaluate('location.pathname'), await page.evaluate('document.documentElement.lang')],
    [new URL(`/app${path}`, 'http://x').pathname, language], `${path}: the page and its <html lang>`,
  );
  await assertAccessible(page, `${path} (${language}) at 1280 px`);
  await page.setViewportSize({ width: 375, height: 812 });
  await settle(page);
  await assertAccessible(page, `${path} (${language}) at 375 px`);
}

const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: join(SCREENSHOTS, `i18n-${name}.png`), fullPage: true });

test('every page is accessible in English and in Spanish, and the profile\'s language is stored for the user', { skip: skipWithoutChromium, timeout: 240_000, concurrency: 2 }, async (t) => {
  buildWebIfStale();
  const service = await startService(t, { env: { HERALD_DATABASE_URL: 'sqlite::memory:', HERALD_PUBLIC_URL: 'http://herald.test', HERALD_SESSION_RATE_LIMIT: '1000' } });
  const base = await service.http.listen({ port: 0, host: '127.0.0.1' });
  const account = await openAccount(service, { name: 'Acme' });
  // One of each record a page shows by id.
  const created = async (url: string, body: unknown, field: string): Promise<string> => {
    const res = await post(service, url, account.apiKey, body);
    assert.ok(res.statusCode === 200 || res.statusCode === 201, `${url}: ${res.body}`);
    return String(res.json()[field]);
  };
  const listId = await created('/v1/lists', { name: 'News', optin: 'single' }, 'list_id');
  const contactId = await created('/v1/contacts', { email: 'ana@example.org', name: 'Ana', lists: [listId] }, 'contact_id');
  const campaignId = await created('/v1/campaigns', { name: 'July news', subject: 'News', from: { email: 'news@example.com', name: 'Example News' }, replyTo: { email: 'help@example.com', name: 'Help' }, body: '<p>Hi</p>', lists: [listId] }, 'campaign_id');
  const templateId = await created('/v1/email/templates', { name: 'Welcome', html: '<p>Hi {{name}}</p>' }, 'template_id');
  const endpointId = await created('/v1/webhooks/endpoints', { url: 'https://hooks.example.com/herald', description: 'Orders', event_types: ['email.delivered'] }, 'id');
  const sent = await post(service, '/v1/email', account.apiKey, emailBody());
  assert.equal(sent.statusCode, 200, sent.body);
  const msgid = String(sent.json().to[0].msgid);
  const invited = await fetch(`${base}/admin/v1/accounts/${account.id}/users`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.test', role: 'owner' }),
  });
  const token = ((await invited.json()) as { invitation_url: string }).invitation_url.split('#')[1];
  const accepted = await post(service, '/v1/auth/invitation/accept', undefined, { token, password: PASSWORD });
  assert.equal(accepted.statusCode, 200, accepted.body);

  // The routes of web/src/app.tsx, with the ids made above (an id of nothing shows the page's not-found state).
  // No two neighbours show the same page component (its h1 would be kept, not replaced).
  const accountPages = [
    '/', '/api-keys', `/api-keys/${MISSING}/requests`, '/templates', '/templates/new', '/domains', `/templates/${templateId}`, '/domains/example.com', '/messages', '/conversations', `/messages/${msgid}`,
    '/conversations/ana%40example.org', '/compose', '/whatsapp-templates', '/webhooks', `/webhooks/deliveries/${MISSING}`, `/webhooks/endpoints/${endpointId}`, '/suppressions', '/usage', '/lists', `/lists/${listId}`,
    `/contacts/${contactId}`, '/segments', '/campaigns', '/campaigns/new', `/campaigns/${campaignId}`, `/campaigns/${campaignId}/edit`, '/users', '/profile', '/no-such-page',
  ];
  const operatorPages = ['/operator', `/operator/accounts/${account.id}`, '/operator/health'];
  const publicPages = ['/sign-in', '/operator/sign-in', '/password-reset'];
  // Every route of app.tsx is swept; the invitation page needs an emailed token (the stories visit it).
  const visited = [...accountPages, ...operatorPages, ...publicPages];
  const routes = [...readFileSync(new URL('../../web/src/app.tsx', import.meta.url), 'utf8').matchAll(/path="([^"]+)"/g)].map((m) => m[1] as string);
  const unswept = routes.filter((route) => route !== '*' && route !== 'invitation').filter((route) => {
    const pattern = (prefix: string) => new RegExp(`^${prefix}/${route.replace(/:[A-Za-z]+/g, '[^/]+')}$`);
    return !visited.some((path) => pattern('').test(path) || pattern('/operator').test(path));
  });
  assert.deepStrictEqual(unswept, []);

  const problems: PageProblems = { errors: [] };
  const browser = await launchChromium(t);
  const step = steps(t);
  const contexts: Record<string, BrowserContext> = {};
  for (const language of LANGUAGES) contexts[language] = await languageContext(browser, base, problems, language);

  // The two languages side by side, each in its own context: about a third less time on two cores.
  await Promise.all(LANGUAGES.map(async (language) => {
    const context = contexts[language]!;
    const page = await context.newPage();
    await step(`the pages before sign-in are accessible in ${language}`, 60_000, async () => {
      for (const path of publicPages) await sweep(page, path, language);
    });
    await step(`every page of an owner is accessible in ${language}`, 120_000, async () => {
      const signedIn = await context.request.post(`${base}/v1/auth/sign-in`, { data: { email: 'owner@acme.test', password: PASSWORD } });
      assert.equal(signedIn.status(), 200, await signedIn.text());
      for (const [index, path] of accountPages.entries()) await sweep(page, path, language, index === 0);
    });
    await step(`every page of the operator console is accessible in ${language}`, 60_000, async () => {
      const operator = await context.request.post(`${base}/admin/v1/session`, { data: { token: ADMIN_TOKEN } });
      assert.equal(operator.status(), 200, await operator.text());
      for (const [index, path] of operatorPages.entries()) await sweep(page, path, language, index === 0);
    });
    await page.close();
  }));

  const spanish = await contexts.en!.newPage();
  await step('choosing Español on the profile switches the page at once and stores the choice for the user', 30_000, async () => {
    await spanish.setViewportSize({ width: 1280, height: 900 });
    await spanish.goto('/app/profile');
    await spanish.getByRole('heading', { level: 1, name: 'Your profile' }).waitFor();
    await shot(spanish, 'profile-en');
    await spanish.getByLabel('Language of herald').selectOption('es');
    await spanish.getByRole('heading', { level: 1, name: 'Su perfil' }).waitFor();
    await spanish.getByRole('status').filter({ hasText: 'Idioma guardado.' }).waitFor();
    assert.equal(await spanish.evaluate('document.documentElement.lang'), 'es');
    const session = await contexts.en!.request.get(`${base}/v1/session`);
    assert.equal(((await session.json()) as { user: { locale: string } }).user.locale, 'es');
    await shot(spanish, 'profile-es');
  });

  await step('a browser that never chose a language adopts the user\'s at sign-in', 30_000, async () => {
    const fresh = await openContext(browser, base, problems);
    const signedIn = await fresh.request.post(`${base}/v1/auth/sign-in`, { data: { email: 'owner@acme.test', password: PASSWORD } });
    assert.equal(signedIn.status(), 200);
    const page = await fresh.newPage();
    await page.goto('/app/suppressions');
    await page.getByRole('heading', { level: 1, name: 'Supresiones' }).waitFor();
    assert.deepStrictEqual([await page.evaluate('document.documentElement.lang'), await page.evaluate('localStorage.getItem("herald.language")')], ['es', 'es']);
    await settle(page);
    await shot(page, 'suppressions-es');
    await page.goto(`/app/campaigns/${campaignId}`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await settle(page);
    await shot(page, 'campaign-es');
    await fresh.close();
  });

  assert.deepStrictEqual(problems.errors, []);
});
