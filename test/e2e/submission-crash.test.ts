// An SMTP submission whose process dies between its commit and its `250`: the client never
// reads the reply, submits the same message again with the same X-Herald-Idempotency-Key,
// and gets the first submission's msgids, billed once. herald runs as a child process
// (`serve --role api`, submission on loopback); the first client is a bare socket that
// reads the greeting, writes the whole transaction (EHLO, AUTH PLAIN, MAIL, RCPT, DATA, the
// message, the dot) and reads nothing more; herald is SIGKILLed once the send's key is committed
// (test/support/commit-watch.ts: on PostgreSQL before herald hears of the commit, on
// SQLite at the first sight of the key in the file), then started again, and nodemailer
// submits the message once more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import nodemailer from 'nodemailer';
import { assertSentOnce, startFirstLife, type Cleanups } from '../support/commit-watch.ts';
import { startHerald, type HeraldProcess } from '../support/herald-process.ts';
import { ADMIN_TOKEN } from '../support/multi-process.ts';
import { TEST_POSTGRES_URL } from '../support/postgres.ts';

const KEY = 'smtp-crash-retry-0001';
const RECIPIENTS = 20;
const recipients = Array.from({ length: RECIPIENTS }, (_, i) => `r${i}@example.org`);
const SUBMISSION_ENV = { HERALD_SUBMISSION_PORT: '0', HERALD_SUBMISSION_HOST: '127.0.0.1', HERALD_PUBLIC_URL: 'http://herald.test' };

/** The message as both submissions write it: the key rides on its header. */
const message = [
  'From: News <news@example.com>', 'To: undisclosed-recipients:;', 'Subject: Your receipt', `X-Herald-Idempotency-Key: ${KEY}`,
  'MIME-Version: 1.0', 'Content-Type: text/plain; charset=us-ascii', '', 'Thank you for your order.', '',
].join('\r\n');

/** The STARTTLS port the process logged (`SMTP submission listening`), no certificate: AUTH on loopback. */
function submissionPort(herald: HeraldProcess): number {
  const port = /"starttlsPort":(\d+)/.exec(herald.output())?.[1];
  assert.ok(port !== undefined, `herald logged its submission port:\n${herald.output().slice(-3000)}`);
  return Number(port);
}

/**
 * Waits for the greeting (smtp-server hangs up on a client that talks first), then writes the
 * whole transaction on a bare socket and reads no more: a client that will not see the 250.
 * What it is sent from then on stays unread until the test reads it after the kill.
 */
async function slowClient(port: number, apiKey: string): Promise<{ socket: Socket; greeting: string }> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {}); // the reset when the server dies
  let greeting = '';
  const read = (chunk: Buffer): void => {
    greeting += chunk.toString('latin1');
  };
  socket.on('data', read);
  await once(socket, 'connect');
  while (!greeting.endsWith('\r\n')) await once(socket, 'data');
  socket.off('data', read);
  socket.pause();
  socket.write([
    'EHLO client.example.com', `AUTH PLAIN ${Buffer.from(`\0apikey\0${apiKey}`).toString('base64')}`, 'MAIL FROM:<news@example.com>',
    ...recipients.map((r) => `RCPT TO:<${r}>`), 'DATA', message, '.', '',
  ].join('\r\n'));
  return { socket, greeting };
}

/** The reply codes of what the dead connection had been sent: the last line of each reply. */
const replyCodes = (text: string): string[] => text.split('\r\n').filter((line) => /^\d{3} /.test(line)).map((line) => line.slice(0, 3));

for (const kind of ['sqlite', 'postgres'] as const) {
  const skip = kind === 'postgres' && (TEST_POSTGRES_URL === undefined || TEST_POSTGRES_URL === '') ? 'needs TEST_POSTGRES_URL' : false;
  test(`${kind}: a submission SIGKILLed between its commit and its 250 is answered on resubmission with the same key: the first msgids, billed once`, { skip, timeout: 120_000 }, async (t) => {
    const cleanups: Cleanups = [];
    t.after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    });
    const life = await startFirstLife(cleanups, kind, KEY, SUBMISSION_ENV);
    const { url, herald: first, account, watch: gate, storedKey } = life;

    const committed = gate.committed();
    const client = await slowClient(submissionPort(first), account.apiKey);
    cleanups.push(() => client.socket.destroy());
    await committed;
    const stored = await storedKey();
    assert.ok(stored !== undefined, 'the key is committed');
    await first.kill('SIGKILL');
    assert.equal(client.greeting, '220 herald.test ESMTP\r\n');
    let unread = '';
    client.socket.setEncoding('latin1').on('data', (chunk: string) => (unread += chunk));
    client.socket.resume();
    await once(client.socket, 'close');
    // EHLO, AUTH, MAIL, each RCPT, DATA's 354; on PostgreSQL never the 250 (herald died before it knew of the commit).
    const before250 = ['250', '235', '250', ...recipients.map(() => '250'), '354'];
    if (kind === 'postgres') assert.deepStrictEqual(replyCodes(unread), before250);
    else t.diagnostic(`the first 250 reached the dead connection: ${replyCodes(unread).length > before250.length}`);

    const second = await startHerald('all', { HERALD_DATABASE_URL: url, HERALD_ADMIN_TOKEN: ADMIN_TOKEN, ...SUBMISSION_ENV });
    // SIGTERM: a clean stop, its database connections closed before the schema is dropped.
    cleanups.push(() => second.kill('SIGTERM'));
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: submissionPort(second), secure: false, ignoreTLS: true, auth: { user: 'apikey', pass: account.apiKey }, logger: false });
    cleanups.push(() => transport.close());
    const resubmitted = await transport.sendMail({ envelope: { from: 'news@example.com', to: recipients }, raw: message });

    const answer = JSON.parse(stored.answer) as { to: { email: string; msgid: string }[] };
    assert.deepStrictEqual(answer.to.map((r) => r.email), recipients);
    assert.equal(resubmitted.response, `250 2.0.0 Ok: queued as ${answer.to[0]!.msgid} and ${RECIPIENTS - 1} more (${RECIPIENTS} messages)`);
    await assertSentOnce(life, second, answer.to.map((r) => r.msgid));
  });
}
