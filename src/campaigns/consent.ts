// Consent: what joining, confirming and leaving a list does to a subscription. Every
// change is kept (consent_events) with its time and source, and shown on the contact.
//
//   (none) ──join──▶ confirmed                      single opt-in
//   (none) ──join──▶ unconfirmed ──link POST──▶ confirmed   double opt-in (a confirmation email goes out)
//   any ──unsubscribe──▶ unsubscribed
//
// Joining again changes nothing (no second confirmation email), except that an API
// call may sign an unsubscribed person up again (their new sign-up, through the
// account's form); an import never does: an unsubscribe outlives any old spreadsheet.

export const OPTINS = ['single', 'double'] as const;
export type Optin = (typeof OPTINS)[number];

export const SUBSCRIPTION_STATUSES = ['unconfirmed', 'confirmed', 'unsubscribed'] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

/** Where a change of consent came from. `unsubscribe` and `complaint` are recorded by campaign messages' links and reports. */
export const CONSENT_SOURCES = ['api', 'import', 'link', 'unsubscribe', 'complaint'] as const;
export type ConsentSource = (typeof CONSENT_SOURCES)[number];

/** A change joining a list makes: the new status, and whether a confirmation email goes out. */
export interface Joining {
  readonly status: SubscriptionStatus;
  readonly sendConfirmation: boolean;
}

/** What joining a list of `optin` does to a subscription now `current` (undefined: none); undefined: nothing changes. */
export function joinList(optin: Optin, current: SubscriptionStatus | undefined, source: 'api' | 'import'): Joining | undefined {
  if (current === 'confirmed' || current === 'unconfirmed') return undefined;
  if (current === 'unsubscribed' && source === 'import') return undefined;
  return optin === 'single' ? { status: 'confirmed', sendConfirmation: false } : { status: 'unconfirmed', sendConfirmation: true };
}

/** What the confirmation link's POST finds. */
export type Confirming = 'confirm' | 'already-confirmed' | 'withdrawn';

export function confirmSubscriptionStatus(current: SubscriptionStatus | undefined): Confirming {
  if (current === 'unconfirmed') return 'confirm';
  if (current === 'confirmed') return 'already-confirmed';
  // Unsubscribed since the email, or the subscription (or the list) is gone.
  return 'withdrawn';
}
