import nodemailer from 'nodemailer';
import type { SendMailOptions } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import { serveParent } from './child.ts';

// The child side of the email load generators (lib/nodemailer-child.ts, lib/submission-child.ts):
// one pooled nodemailer transport, messages built by `prepare` before the clock starts,
// `send` keeping at most `inFlight` sendMail calls pending, each lane taking the next
// message when its last one is done (herald's worker keeps its per-channel slots the same way).

export interface NodemailerSend {
  readonly inFlight: number;
}

export interface PreparedMail {
  /** The transport's options: used by the first `prepare` only, the pool then stays. */
  readonly pool: SMTPPool.Options;
  readonly messages: SendMailOptions[];
}

export function serveNodemailer(prepare: (args: unknown) => PreparedMail): void {
  let mailer: ReturnType<typeof nodemailer.createTransport> | undefined;
  let prepared: SendMailOptions[] = [];
  serveParent(
    {},
    {
      async prepare(args) {
        const { pool, messages } = prepare(args);
        mailer ??= nodemailer.createTransport(pool);
        prepared = messages;
      },
      async send(args) {
        const { inFlight } = args as NodemailerSend;
        const transport = mailer;
        if (transport === undefined) throw new Error('prepare first');
        const queue = prepared;
        prepared = [];
        let next = 0;
        const lane = async (): Promise<void> => {
          while (next < queue.length) {
            const mail = queue[next++];
            if (mail !== undefined) await transport.sendMail(mail);
          }
        };
        await Promise.all(Array.from({ length: Math.min(inFlight, queue.length) }, lane));
      },
    },
    async () => {
      mailer?.close();
    },
  );
}
