// The user's own language, stored by herald (PATCH /v1/me) so it follows them to every
// browser and into herald's emails: the application adopts it whenever a session is read
// (sign-in, reload); a user who never chose keeps the browser's language.
import { api } from '../api/http.ts';
import type { Session } from '../api/types.ts';
import { chooseLanguage, currentLanguage, type Language } from './i18n.ts';

// What was last adopted: the session is read again every minute, and a language picked
// since in this browser alone must not be undone by each read.
let adopted: string | undefined;

/** Switches to the session user's stored language when it is new to this page (sign-in, first read, a change). */
export function adoptUserLanguage(session: Session): void {
  const chosen = session.user.locale;
  const key = `${session.user.user_id}:${chosen ?? ''}`;
  if (key === adopted) return;
  adopted = key;
  if (chosen !== null && chosen !== currentLanguage()) void chooseLanguage(chosen);
}

/** Stores the user's language on the server; the session as it is now. */
export const saveUserLanguage = (language: Language) => api<Session>('/v1/me', { method: 'PATCH', body: { locale: language } });
