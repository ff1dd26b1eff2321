import { ROLES, type Role } from './access.ts';
import type { Locale } from './locale.ts';

// A person who signs in to an account's web application (issue 12). The role decides
// what they may do (domain/access.ts roleGrant); the secrets are never in a view.

export interface User {
  readonly id: string;
  readonly accountId: string;
  /** Lower-cased; unique over the service, since sign-in names no account. */
  readonly email: string;
  readonly role: Role;
  /** scrypt hash (app/password-hash.ts); null while the invitation is not accepted. */
  readonly passwordHash: string | null;
  /** Encrypted TOTP secret (app/totp.ts); null: no second factor. */
  readonly totpSecret: string | null;
  readonly totpPendingSecret: string | null;
  readonly totpLastStep: number | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly lastSignInAt: number | null;
  /** The language the user chose; null: none yet (the browser's, and English in herald's emails). */
  readonly locale: Locale | null;
}

/**
 * Where the web application's pages for the emailed links live; the one-time token
 * follows the `#`, which browsers never send to a server.
 */
export const INVITATION_PAGE = '/app/invitation';
export const PASSWORD_RESET_PAGE = '/app/password-reset';

export const isRole = (value: unknown): value is Role => (ROLES as readonly unknown[]).includes(value);

/** The session a browser holds, as the store keeps it (the id the cookie carries is only hashed there). */
export interface SessionRecord {
  readonly id: string;
  readonly userId: string;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  readonly expiresAt: number;
}
