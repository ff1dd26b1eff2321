import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// A fresh self-signed certificate (RSA 2048, valid a day) and its key as PEM files in a
// temporary directory of their own, made by the system's openssl: Node can read
// certificates but not make them, and smtp-server's bundled one has expired.

export interface SelfSignedCert {
  /** PEM private key, unencrypted, readable by root only (Postfix reads it before dropping privileges). */
  readonly keyFile: string;
  readonly certFile: string;
  /** Removes the directory and both files. */
  remove(): Promise<void>;
}

const run = promisify(execFile);

export async function makeSelfSignedCert(commonName: string): Promise<SelfSignedCert> {
  const dir = await mkdtemp(join(tmpdir(), 'herald-cert-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    await run('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${commonName}`,
      '-addext', `subjectAltName=DNS:${commonName}`, '-keyout', keyFile, '-out', certFile,
    ]);
  } catch (error) {
    await remove();
    throw error;
  }
  return { keyFile, certFile, remove };
}
