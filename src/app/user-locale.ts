import type { Locale } from '../domain/locale.ts';
import type { User } from '../domain/user.ts';
import { setUserLocale } from '../store/users.ts';
import type { AuthDeps } from './sessions.ts';

// The language a user chose on their profile: the web application adopts it at sign-in,
// and herald's own emails to the user are written in it (docs/languages.md).

/** Stores the user's language (null: back to the browser's); the user as it is now. */
export async function setOwnLocale(deps: AuthDeps, user: User, locale: Locale | null): Promise<User> {
  const now = deps.clock();
  await setUserLocale(deps.db, user.id, locale, now);
  return { ...user, locale, updatedAt: now };
}
