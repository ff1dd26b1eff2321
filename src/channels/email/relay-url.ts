// The smart host's URL (HERALD_EMAIL_TRANSPORT=smtp://… or smtps://…): where the relay
// is, how to log in, and what its acceptance means. No nodemailer here, so the
// configuration can check the URL at start without loading the transport.

/**
 * What confirms delivery of a relayed message:
 * - `notice` (default): the relay's delivery status notification (RFC 3461) that comes
 *   back to the inbound listener; the relay's 250 alone is `sent`.
 * - `accepted`: the relay's 250 — for a relay that is the last hop (it stores the mail
 *   itself) or that never sends notices.
 */
export type DeliveryConfirmation = 'notice' | 'accepted';

export interface RelayAddress {
  readonly host: string;
  readonly port: number;
  readonly secure: boolean;
  readonly auth: { readonly user: string; readonly pass: string } | undefined;
  readonly delivered: DeliveryConfirmation;
}

/** The query options a relay URL may carry, each with its allowed values. */
const RELAY_URL_OPTIONS: Readonly<Record<string, readonly string[]>> = { delivered: ['notice', 'accepted'] };

/** Parsed here rather than by nodemailer, so the credentials are known (for masking) and percent-decoded. */
export function parseRelayUrl(text: string): RelayAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // Never echo the value: it may hold the password.
    throw new Error('the SMTP relay URL does not parse');
  }
  const secure = url.protocol === 'smtps:';
  if (!secure && url.protocol !== 'smtp:') throw new Error(`the SMTP relay URL must be smtp:// or smtps://, not ${url.protocol}//`);
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host === '') throw new Error('the SMTP relay URL has no host');
  const port = url.port === '' ? (secure ? 465 : 587) : Number(url.port);
  const user = decodeURIComponent(url.username);
  const pass = decodeURIComponent(url.password);
  // A misspelt option must not be ignored: the operator would believe it in force.
  for (const [name, value] of url.searchParams) {
    const allowed = RELAY_URL_OPTIONS[name];
    if (allowed === undefined) throw new Error(`the SMTP relay URL has an unknown option "${name}"; known: ${Object.keys(RELAY_URL_OPTIONS).join(', ')}`);
    if (!allowed.includes(value)) throw new Error(`the SMTP relay URL option "${name}" must be one of ${allowed.join(', ')}`);
  }
  const delivered: DeliveryConfirmation = url.searchParams.get('delivered') === 'accepted' ? 'accepted' : 'notice';
  return { host, port, secure, auth: user === '' && pass === '' ? undefined : { user, pass }, delivered };
}
