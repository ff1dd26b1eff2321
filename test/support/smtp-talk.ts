import { connect, type Socket } from 'node:net';
import { once } from 'node:events';

// A bare SMTP conversation for tests that assert replies to the letter: each command's
// whole reply (a multi-line one joined by \n), nothing interpreted. Real clients
// (nodemailer, smtplib, swaks) are in test/submission/clients.test.ts; this one lets a
// test stop at any step, or send what no client would.

export interface SmtpTalk {
  /** The greeting, read on connect. */
  readonly greeting: string;
  /** Writes one command line and reads its reply. */
  say(line: string): Promise<string>;
  /** Writes bytes as they are (a message's DATA, pipelined commands) without reading. */
  write(bytes: string | Buffer): void;
  /** Reads the next reply. */
  reply(): Promise<string>;
  /** Resolves when the server has closed the connection. */
  closed(): Promise<void>;
  end(): void;
}

const REPLY_END = /^\d{3} .*$/m;

export async function smtpTalk(port: number, host = '127.0.0.1'): Promise<SmtpTalk> {
  const socket: Socket = connect(port, host);
  socket.setEncoding('utf8');
  socket.on('error', () => {});
  let buffered = '';
  let ended = false;
  const waiting: (() => void)[] = [];
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    for (const wake of waiting.splice(0)) wake();
  });
  socket.on('close', () => {
    ended = true;
    for (const wake of waiting.splice(0)) wake();
  });
  await once(socket, 'connect');
  const reply = async (): Promise<string> => {
    for (;;) {
      const lines = buffered.split('\r\n');
      const last = lines.findIndex((line) => REPLY_END.test(line));
      if (last >= 0) {
        buffered = lines.slice(last + 1).join('\r\n');
        return lines.slice(0, last + 1).join('\n');
      }
      if (ended) throw new Error(`connection closed; unread: ${JSON.stringify(buffered)}`);
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  const greeting = await reply();
  return {
    greeting,
    say(line) {
      socket.write(`${line}\r\n`);
      return reply();
    },
    write: (bytes) => void socket.write(bytes),
    reply,
    closed: () => (ended ? Promise.resolve() : once(socket, 'close').then(() => undefined)),
    end: () => void socket.end(),
  };
}

/** AUTH PLAIN's one argument: authzid, user and password, NUL-separated, base64. */
export const plainAuth = (user: string, password: string): string => Buffer.from(`\0${user}\0${password}`).toString('base64');
