import type { UnsubscribeDone, UnsubscribeSubject } from '../app/record-engagement.ts';
import type { Locale } from '../domain/locale.ts';
import { textsFor } from '../i18n/server-texts.ts';
import { escapeHtml } from './recipient-page.ts';

// Every text of the unsubscribe pages (GET and POST /u/:token), each saying exactly what was
// done, or would be: a suppression stops all the sender's email; a campaign's link leaves the
// lists it names and nothing else; a second visit changes nothing and says so (issue 24).
// The words are the `unsubscribe` texts of src/i18n/locales/<language>/pages.json; the
// values put into them are escaped here. Each answer is a page title and its HTML body.

export interface PageText {
  readonly title: string;
  readonly body: string;
}

const strong = (text: string): string => `<strong>${escapeHtml(text)}</strong>`;
const names = (lists: readonly string[]): string => lists.map(strong).join(', ');
const texts = (locale: Locale) => textsFor(locale, 'pages');

/** GET /u/:token: what the link would do, with the form that does it; or that it is done already. */
export function confirmationText(subject: UnsubscribeSubject, locale: Locale): PageText & { readonly form: boolean } {
  const t = texts(locale);
  const values = { who: strong(subject.address), sender: escapeHtml(subject.senderName), lists: names(subject.lists), count: subject.lists.length };
  if (subject.alreadyUnsubscribed) {
    const body = subject.campaign
      ? (subject.lists.length === 0
        ? `<h1>${t('unsubscribe.nothingHeading')}</h1>\n<p>${t('unsubscribe.nothingBody', values)}</p>`
        : `<h1>${t('unsubscribe.alreadyHeading')}</h1>\n<p>${t('unsubscribe.alreadyLeft', values)}</p>`)
      : `<h1>${t('unsubscribe.alreadyHeading')}</h1>\n<p>${t('unsubscribe.alreadyNoEmail', values)}</p>`;
    return { title: t('unsubscribe.doneTitle'), body, form: false };
  }
  const question = subject.campaign ? t('unsubscribe.askLists', values) : t('unsubscribe.askAll', values);
  return { title: t('unsubscribe.title'), body: `<h1>${t('unsubscribe.title')}</h1>\n<p>${question}</p>`, form: true };
}

/** The label of the campaign page's choice to leave every list of the sender. */
export const everyListLabel = (senderName: string, locale: Locale): string => texts(locale)('unsubscribe.everyList', { sender: escapeHtml(senderName) });

export const unsubscribeButton = (locale: Locale): string => texts(locale)('unsubscribe.button');

/** POST /u/:token from the page: what was done, exactly. */
export function doneText(done: UnsubscribeDone, locale: Locale): PageText {
  const t = texts(locale);
  const title = t('unsubscribe.doneTitle');
  const values = { who: strong(done.address), sender: escapeHtml(done.senderName) };
  if (!done.recorded) return { title, body: `<h1>${t('unsubscribe.alreadyHeading')}</h1>\n<p>${t('unsubscribe.wasAlready', values)}</p>` };
  if (done.left === undefined) return { title, body: `<h1>${t('unsubscribe.doneHeading')}</h1>\n<p>${t('unsubscribe.doneAll', values)}</p>` };
  const lists = { ...values, lists: names(done.left.lists), count: done.left.lists.length };
  return { title, body: `<h1>${t('unsubscribe.doneHeading')}</h1>\n<p>${t('unsubscribe.doneLists', lists)}</p>` };
}
