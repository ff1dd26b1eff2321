// The tagged envelope sender herald writes for a message of a started service, for
// tests that play the remote MTA writing a bounce or a complaint back to it.
import { verpTags } from '../../src/domain/verp-address.ts';
import type { Service } from '../../src/service.ts';

/** `b+<msgid>-<tag>@<bounce domain>`, as the service's transports write it. */
export function verpOf(service: Service, msgid: string): string {
  return verpTags(service.deps.signingSecret).address(msgid, service.deps.bounceDomain);
}

/** HERALD_EMAIL_RETRY_HOURS' default, for tests that record a report without the listener. */
export const UNTAGGED_HORIZON_MS = 72 * 3_600_000;

/** The msgid of a VERP envelope sender as an SMTP peer saw it (tagged or not); '' for another sender. */
export const msgidOfMailFrom = (mailFrom: string | false): string =>
  (mailFrom === false ? '' : /^b\+([0-9a-f-]{36})(?:-[0-9a-f]+)?@/i.exec(mailFrom)?.[1] ?? '');
