// Shared by the email channel tests: one outbound message, the compose settings, a
// DKIM key published in the loopback DNS peer, and peers closed after each test.

import { generateKeyPairSync } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import type { TestContext } from 'node:test';
import type { EmailPayload, Outbound } from '../../../src/domain/outbound.ts';
import type { AttachmentResolver, ComposeSettings } from '../../../src/channels/email/compose.ts';
import { noDkimKeys, type DkimKeyLookup } from '../../../src/channels/email/dkim.ts';
import { trackingTokens } from '../../../src/domain/tracking-token.ts';
import { verpTags } from '../../../src/domain/verp-address.ts';
import { startDnsServer, type DnsPeer } from '../../peers/dns-server.ts';
import { startSmtpSink, type SinkOptions, type SmtpSink } from '../../peers/smtp-sink.ts';

export const MSGID = '0190f3a2-7b1c-7d4e-8f5a-9b0c1d2e3f4a';
export const ACCOUNT = 'acct-0001';
/** 2024-07-01T12:00:00Z */
export const FIXED_TIME = Date.UTC(2024, 6, 1, 12, 0, 0);

export const PAYLOAD: EmailPayload = {
  from: { email: 'news@example.com', name: 'Example News' },
  replyTo: { email: 'help@example.com', name: 'Example Help' },
  subject: 'Your July letter',
  html: '<p>Hello <b>Ana</b></p>',
  text: 'Hello Ana',
  to: ['ana@example.org'],
  cc: ['carl@example.org'],
  attachments: [],
};

export function outbound(overrides: Partial<Outbound<EmailPayload>> = {}): Outbound<EmailPayload> {
  return { msgid: MSGID, accountId: ACCOUNT, attempt: 1, recipient: 'ana@example.org', payload: PAYLOAD, ...overrides };
}

export const noAttachments: AttachmentResolver = async () => ({ ok: true, attachments: [] });

/** The installation secret the fixtures' tracking and unsubscribe tokens are signed with. */
export const SIGNING_SECRET = new Uint8Array(32).fill(7);

/**
 * The envelope sender herald writes for the fixtures' msgid under SIGNING_SECRET, written
 * out: the tag's algorithm must not change while messages with older tags may still bounce.
 */
export const VERP_FROM = `b+${MSGID}-92727668eafaa5e7@bounces.example.com`;

export const SETTINGS = {
  messageIdHost: 'herald.example.com',
  bounceDomain: 'bounces.example.com',
  publicUrl: 'https://herald.example.com',
  tokens: trackingTokens(SIGNING_SECRET),
  verp: verpTags(SIGNING_SECRET),
  dkim: noDkimKeys,
  clock: () => FIXED_TIME,
} as const satisfies ComposeSettings;

export interface DkimFixture {
  readonly selector: string;
  readonly privateKey: string;
  /** base64 DER SubjectPublicKeyInfo, the record's p= tag. */
  readonly publicKey: string;
  /** Looks up the key for example.com only, recording each question. */
  readonly lookup: DkimKeyLookup;
  readonly asked: [string, string][];
}

let cachedPair: { privateKey: string; publicKey: string } | undefined;

/** An RSA 2048 key for example.com (generated once per test file: it takes a moment). */
export function dkimFixture(selector = 'herald202407'): DkimFixture {
  cachedPair ??= (() => {
    const pair = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    return { privateKey: pair.privateKey, publicKey: pair.publicKey.toString('base64') };
  })();
  const { privateKey, publicKey } = cachedPair;
  const asked: [string, string][] = [];
  return {
    selector, privateKey, publicKey, asked,
    lookup: async (accountId, domain) => {
      asked.push([accountId, domain]);
      return domain === 'example.com' ? { selector, privateKey } : undefined;
    },
  };
}

/** Publishes the key as `<selector>._domainkey.example.com` TXT, in strings of at most 255 octets. */
export function publishDkimKey(dns: DnsPeer, key: DkimFixture): void {
  const name = `${key.selector}._domainkey.example.com`;
  const record = `v=DKIM1; k=rsa; p=${key.publicKey}`;
  const strings = record.match(/.{1,255}/g) ?? [];
  dns.set(name, [{ type: 'TXT', name, ttl: 60, data: strings }]);
}

export async function startSink(t: TestContext, options: SinkOptions = {}): Promise<SmtpSink> {
  const sink = await startSmtpSink(options);
  t.after(() => sink.close());
  return sink;
}

export async function startDns(t: TestContext): Promise<{ dns: DnsPeer; resolver: Resolver }> {
  const dns = await startDnsServer();
  t.after(() => dns.close());
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([dns.server]);
  return { dns, resolver };
}

/** The header block of a raw message, unfolded, one field per entry. */
export function headerFields(raw: Buffer | string): string[] {
  const text = raw.toString();
  const end = text.indexOf('\r\n\r\n');
  return text.slice(0, end).replace(/\r\n[ \t]/g, ' ').split('\r\n');
}

/** The value of the one header field named `name` (case-insensitive), or undefined. */
export function header(raw: Buffer | string, name: string): string | undefined {
  const prefix = `${name.toLowerCase()}:`;
  const field = headerFields(raw).find((f) => f.toLowerCase().startsWith(prefix));
  return field?.slice(prefix.length).trim();
}
