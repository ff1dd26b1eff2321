// The real peers of every channel on loopback, and the settings that point herald at
// them: a message that leaves through a configured transport lands here (the sandbox
// tests assert that nothing of a test key's does).
import type { TestContext } from 'node:test';
import { startCloudApiStandIn, type CloudApiStandIn } from '../peers/whatsapp-cloud-api.ts';
import { startSmsc, type Smsc } from '../peers/smsc.ts';
import { startSmtpSink, type SmtpSink } from '../peers/smtp-sink.ts';

export interface RealPeers {
  readonly sink: SmtpSink;
  readonly smsc: Smsc;
  readonly cloudApi: CloudApiStandIn;
  /** HERALD_EMAIL_TRANSPORT, HERALD_SMS_TRANSPORT and HERALD_WHATSAPP_TRANSPORT for them. */
  readonly env: Record<string, string>;
}

/** Started, and closed when the test ends. */
export async function startRealPeers(t: TestContext): Promise<RealPeers> {
  const sink = await startSmtpSink({ starttls: false });
  t.after(() => sink.close());
  const smsc = await startSmsc();
  t.after(() => smsc.close());
  const cloudApi = await startCloudApiStandIn(t);
  return {
    sink, smsc, cloudApi,
    env: { HERALD_EMAIL_TRANSPORT: `smtp://${sink.host}:${sink.port}`, HERALD_SMS_TRANSPORT: smsc.url(), HERALD_WHATSAPP_TRANSPORT: cloudApi.baseUrl },
  };
}
