// The one email both sides send: herald gets it as its HTTP request, the baseline as
// nodemailer message options with what herald adds (Message-ID, VERP envelope sender,
// List-Unsubscribe, text alternative, DKIM), so the bytes on the wire are alike.

export const FROM = { email: 'news@example.com', name: 'Example News' } as const;
export const REPLY_TO = { email: 'help@example.com', name: 'Help' } as const;

/** About 1 KB of HTML, a typical short notification. */
export function html(i: number): string {
  const rows = Array.from({ length: 8 }, (_, r) => `<tr><td>Item ${r + 1}</td><td>${(r + 1) * 7} units</td><td>ready</td></tr>`).join('');
  return `<h1>Your order #${100000 + i}</h1><p>Hi Ana,</p><p>Thank you for your order. The items below are packed and leave our warehouse today.</p><table>${rows}</table><p>Questions? Just reply to this message.</p><p>— The Example team</p>`;
}

export function recipient(i: number): string {
  return `ana+${i}@example.org`;
}

export function subject(i: number): string {
  return `Your order #${100000 + i} is on its way`;
}

/** POST /v1/email body: one recipient. */
export function emailRequest(i: number): Record<string, unknown> {
  return { to: [{ email: recipient(i) }], from: FROM, replyTo: REPLY_TO, subject: subject(i), body: html(i) };
}

/** The text body an application submits by SMTP (smtp-submit): 5 KB, 80 lines of 64 bytes. */
export const SUBMITTED_BODY_BYTES = 5 * 1024;
const LINE_BYTES = 64;

export function submittedText(i: number): string {
  const lines = [`Hi Ana,`, '', `Thank you for your order #${100000 + i}. Here is what it holds:`, ''];
  while (lines.length < SUBMITTED_BODY_BYTES / LINE_BYTES) {
    const r = lines.length - 3;
    lines.push(`Item ${r}: ${(r * 7) % 50} units of article ${200000 + r}, packed, leaves today`);
  }
  return lines.map((line) => `${line.padEnd(LINE_BYTES - 1)}\n`).join('');
}

/** One message as an application hands it to an SMTP submission server: one recipient, a plain 5 KB text. */
export function submittedEmail(i: number): { from: string; to: string; subject: string; text: string } {
  return { from: `${FROM.name} <${FROM.email}>`, to: recipient(i), subject: subject(i), text: submittedText(i) };
}
