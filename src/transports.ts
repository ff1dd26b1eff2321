import { Resolver } from 'node:dns/promises';
import type { Logger } from 'pino';
import type { KeyDeps } from './app/api-keys.ts';
import { dkimKeyLookup } from './app/dkim-keys.ts';
import { recordPeerStatus } from './app/record-peer-status.ts';
import { receiveSms } from './app/receive-sms-part.ts';
import { whatsappCredentials } from './app/whatsapp-credentials.ts';
import type { CaptureSink } from './channels/channel.ts';
import { attachmentResolver } from './channels/email/attachments.ts';
import { emailCaptureTransport } from './channels/email/capture-transport.ts';
import type { ComposeSettings, ConfirmationLinkSigner } from './channels/email/compose.ts';
import { smsCaptureTransport } from './channels/sms/capture-transport.ts';
import { whatsappCaptureTransport } from './channels/whatsapp/capture-transport.ts';
import { confirmationTokens } from './campaigns/consent-token.ts';
import type { Config } from './config.ts';
import { trackingTokens } from './domain/tracking-token.ts';
import { verpTags } from './domain/verp-address.ts';
import type { SandboxTransports, Transports } from './queue/outbox/worker.ts';
import { simulatorTransport } from './channels/simulator/simulator-transport.ts';
import { putCapture } from './store/messages.ts';

// The one place where configuration picks the transport of each channel. The capture
// transports (the default, and always a test key's) and the simulator (docs/sandbox.md)
// are loaded with this module; a peer's transport is loaded
// only when configured (the SMPP one brings the smpp library, and ioredis with Redis).

const ATTACHMENT_TIMEOUT_MS = 30_000;

export interface BuiltTransports {
  readonly transports: Transports;
  /** The capture transports (a test key's messages) and the simulator (its recipients), whatever is configured. */
  readonly sandbox: SandboxTransports;
  close(): Promise<void>;
}

export async function buildTransports(config: Config, deps: KeyDeps, logger: Logger): Promise<BuiltTransports> {
  const sink: CaptureSink = { put: (capture) => putCapture(deps.db, { ...capture, at: deps.clock() }) };
  const compose: ComposeSettings & { dkim: ReturnType<typeof dkimKeyLookup> } = {
    messageIdHost: new URL(config.publicUrl).hostname,
    bounceDomain: deps.bounceDomain,
    publicUrl: config.publicUrl,
    tokens: trackingTokens(deps.signingSecret, { trackedLinkDays: config.trackedLinkDays }),
    verp: verpTags(deps.signingSecret),
    dkim: dkimKeyLookup(deps.db),
    clock: deps.clock,
  };
  // Only the transports that reach the recipient sign confirmation links; the capture
  // transport's copy, which members read, keeps the placeholder (docs/campaigns.md).
  const confirmationLinks: ConfirmationLinkSigner = (claims, now) => confirmationTokens(deps.signingSecret).sign(claims, now);
  const resolveAttachments = attachmentResolver({ allowPrivate: config.fetchAllowPrivate, maxBytes: deps.limits.maxAttachmentBytes, timeoutMs: ATTACHMENT_TIMEOUT_MS });
  const closers: (() => Promise<void>)[] = [];
  const capture: Transports = {
    email: emailCaptureTransport({ ...compose, sink, resolveAttachments }),
    sms: smsCaptureTransport({ sink }),
    whatsapp: whatsappCaptureTransport({ sink }),
  };

  /** A peer's transport, closed with the others when the service stops. */
  const kept = <T extends { close(): Promise<void> }>(transport: T): T => {
    closers.push(() => transport.close());
    return transport;
  };

  // Every peer's transport is loaded lazily, as the module says: only when configured.
  const emailPeer = async (): Promise<Transports['email']> => {
    if (config.emailTransport === 'mx') {
      const resolver = new Resolver({ timeout: 5000, tries: 2 });
      if (config.dnsServers.length > 0) resolver.setServers([...config.dnsServers]);
      const { mxTransport } = await import('./channels/email/mx-transport.ts');
      return kept(mxTransport({ ...compose, confirmationLinks, resolver, heloName: config.heloName ?? deps.bounceDomain, resolveAttachments }));
    }
    const { smtpRelayTransport } = await import('./channels/email/smtp-transport.ts');
    return kept(smtpRelayTransport({ ...compose, confirmationLinks, url: config.emailTransport, resolveAttachments, ...(config.heloName ? { heloName: config.heloName } : {}) }));
  };
  const smsPeer = async (): Promise<Transports['sms']> => {
    const { smppTransport } = await import('./channels/sms/smpp-transport.ts');
    return kept(smppTransport({
      url: config.smsTransport,
      logger,
      sharedCap: config.redisUrl === undefined ? undefined : { url: config.redisUrl, failure: config.redisFailure, keyPrefix: config.redisPrefix },
      onReceipt: async (receipt) => {
        const result = await recordPeerStatus(deps, { channel: 'sms', peer: 'smpp', ...receipt });
        // A receipt can overtake the commit of the submit's own outcome (the row has no
        // provider_ref yet): refusing it makes the SMSC deliver it again a little later.
        if (result === 'unknown-message') throw new Error(`receipt for unknown message ${receipt.providerRef}`);
      },
      // A person's SMS, or a part of one: stored before the SMSC hears ESME_ROK (docs/inbound-sms.md).
      onInbound: (sms) => receiveSms(deps, sms),
    }));
  };
  const whatsappPeer = async (): Promise<Transports['whatsapp']> => {
    const { cloudApiTransport } = await import('./channels/whatsapp/cloud-api-transport.ts');
    return cloudApiTransport({ baseUrl: config.whatsappTransport, credentials: whatsappCredentials(deps) });
  };
  const email = config.emailTransport === 'capture' ? capture.email : await emailPeer();
  const sms = config.smsTransport === 'capture' ? capture.sms : await smsPeer();
  const whatsapp = config.whatsappTransport === 'capture' ? capture.whatsapp : await whatsappPeer();

  return {
    transports: { email, sms, whatsapp },
    sandbox: {
      capture,
      simulator: {
        email: simulatorTransport('email', config.simulatorStepMs),
        sms: simulatorTransport('sms', config.simulatorStepMs),
        whatsapp: simulatorTransport('whatsapp', config.simulatorStepMs),
      },
    },
    async close() {
      await Promise.allSettled(closers.map((close) => close()));
    },
  };
}
