import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';

// smtp-server puts an enhanced status code (RFC 3463) before every reply, chosen by the
// reply's basic code alone (550 → 5.1.1), so a refusal that needs another one (550 5.7.1,
// a sender not permitted) would read `550 5.1.1 5.7.1 …`. A reply whose text already
// starts with its enhanced code (submission/reply-table.ts writes them so) is sent as it is;
// every other reply keeps the library's code. Installed once, for every smtp-server here
// (SMTP submission, the inbound listener's refuse rules: 550 5.7.1).

const ENHANCED = /^[245]\.\d{1,3}\.\d{1,3} /;
const patched = Symbol.for('herald.enhanced-codes');

type Send = (code: number, data?: string | string[], context?: string | false) => void;
const prototype = SMTPConnection.prototype as unknown as { send: Send; [patched]?: true };

export function keepEnhancedCodesAsWritten(): void {
  if (prototype[patched] === true) return;
  const original = prototype.send;
  prototype.send = function send(this: unknown, code, data, context) {
    original.call(this, code, data, typeof data === 'string' && ENHANCED.test(data) ? false : context);
  };
  prototype[patched] = true;
}
