import { readFile } from 'node:fs/promises';
import type { JSONWebKeySet } from 'jose';
import type { KeyDeps } from '../app/api-keys.ts';
import { existingCertificateJwks } from '../app/certificate-signing-key.ts';
import { fetchJwks, parseJwks, receiptFromFile, verifyReceipt } from '../app/certificates.ts';
import { ok, reject, type Result } from '../domain/result.ts';
import type { OnDemandStoreCommand, Printed, Values } from './command-kit.ts';

// `certificates verify`: checks a delivery receipt and a .eml against each other.
// With --jwks (a file, or a URL) it needs neither the database nor herald's
// configuration, so anybody holding the three files can run it offline; without it,
// the key is this installation's own, read from the database.

async function readInput(path: string): Promise<Result<Buffer>> {
  try {
    return ok(await readFile(path));
  } catch (error) {
    const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'unreadable';
    return reject('notFound', { detail: `cannot read ${path} (${code})` });
  }
}

async function keySet(source: Values[string], openDeps: () => Promise<KeyDeps>): Promise<Result<JSONWebKeySet>> {
  if (typeof source !== 'string') {
    const jwks = await existingCertificateJwks((await openDeps()).db);
    return jwks.keys.length > 0 ? ok(jwks) : reject('notFound', { detail: 'INVALID: this installation has no receipt-signing key (it never certified a message); give the issuer\'s key with --jwks' });
  }
  if (/^https?:\/\//i.test(source)) {
    const fetched = await fetchJwks(source);
    return fetched.ok ? ok(fetched.jwks) : reject('notFound', { detail: fetched.reason });
  }
  const file = await readInput(source);
  if (!file.ok) return file;
  const jwks = parseJwks(file.value.toString('utf8'));
  return jwks === undefined ? reject('invalidField', { detail: `${source} is not a JWKS document ({"keys": [...]})` }) : ok(jwks);
}

export const certificatesVerify: OnDemandStoreCommand = {
  usage: 'certificates verify RECEIPT(.jws|.json) MESSAGE.eml [--jwks FILE|URL] [--json]',
  summary: 'Check a delivery receipt and a .eml against each other (--jwks: the issuer\'s key, offline)',
  positionals: ['RECEIPT', 'MESSAGE'],
  options: { jwks: { type: 'string' } },
  needsStore: 'on-demand',
  async run(openDeps, [receiptPath = '', emlPath = ''], values): Promise<Result<Printed>> {
    const receiptFile = await readInput(receiptPath);
    if (!receiptFile.ok) return receiptFile;
    const receipt = receiptFromFile(receiptFile.value.toString('utf8'));
    if (receipt === undefined) return reject('invalidField', { detail: `INVALID: ${receiptPath} holds neither a JWS nor a certificate JSON with a receipt` });
    const eml = await readInput(emlPath);
    if (!eml.ok) return eml;
    const jwks = await keySet(values.jwks, openDeps);
    if (!jwks.ok) return jwks;

    const verdict = await verifyReceipt(receipt, eml.value, jwks.value);
    if (!verdict.valid) return reject('invalidSignature', { detail: `INVALID: ${verdict.reason}` });
    const p = verdict.payload;
    const where = p.delivery === 'capture' ? 'capture (composition only, nothing was sent)' : `${p.delivery} ${p.mx_host ?? '?'} [${p.mx_ip ?? '?'}]`;
    return ok({
      json: { valid: true, kid: verdict.kid, sha256: verdict.sha256, receipt: p },
      text: [
        `VALID: the receipt is signed by key ${verdict.kid} and ${emlPath} is the certified message.`,
        `  msgid      ${p.msgid}`,
        `  from       ${p.from}`,
        `  recipient  ${p.recipient}`,
        `  accepted   ${p.accepted_at} by ${where}`,
        `  reply      ${p.smtp_response ?? '(none)'}`,
        `  sha256     ${p.sha256}`,
        `  issuer     ${p.issuer}`,
        '',
      ].join('\n'),
    });
  },
};
