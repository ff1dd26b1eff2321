import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { convert as htmlToText } from 'html-to-text';
import type { SendMailOptions } from 'nodemailer';
import { DKIM_SIGNED_HEADERS } from '../../src/channels/email/dkim.ts';
import { FROM, REPLY_TO, html, recipient, subject } from './email-content.ts';
import { serveNodemailer } from './nodemailer-sender.ts';

// The email baseline: a raw nodemailer pooled SMTP transport with herald's relay
// settings (5 connections, 100 messages each, STARTTLS, certificate not verified as the
// sink's is self-signed), sending messages equivalent to what herald composes. The
// messages are built before the clock starts (`prepare`); `send` keeps at most
// `inFlight` sendMail calls pending, like herald's worker keeps its per-channel slots.

export interface NodemailerPrepare {
  readonly port: number;
  readonly from: number;
  readonly count: number;
  readonly dkim: boolean;
}

const HOST = 'herald.example.com';
const privateKey = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'der' } }).privateKey;

function message(i: number, dkim: boolean): SendMailOptions {
  const msgid = randomUUID();
  const body = html(i);
  return {
    from: { name: FROM.name, address: FROM.email },
    replyTo: { name: REPLY_TO.name, address: REPLY_TO.email },
    to: [recipient(i)],
    subject: subject(i),
    messageId: `<${msgid}@${HOST}>`,
    date: new Date(),
    baseBoundary: msgid.replaceAll('-', ''),
    html: body,
    text: htmlToText(body, { wordwrap: 78 }),
    headers: { 'List-Unsubscribe': `<https://${HOST}/u/${msgid}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    envelope: { from: `b+${msgid}@${HOST}`, to: [recipient(i)] },
    ...(dkim ? { dkim: { domainName: 'example.com', keySelector: 'bench', privateKey, headerFieldNames: DKIM_SIGNED_HEADERS.join(':') } } : {}),
  };
}

serveNodemailer((args) => {
  const { port, from, count, dkim } = args as NodemailerPrepare;
  return {
    pool: {
      pool: true, host: '127.0.0.1', port, secure: false, maxConnections: 5, maxMessages: 100,
      tls: { rejectUnauthorized: false }, disableFileAccess: true, disableUrlAccess: true, logger: false,
    },
    messages: Array.from({ length: count }, (_, k) => message(from + k, dkim)),
  };
});
