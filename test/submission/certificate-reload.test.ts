// A renewed certificate is taken without a restart (src/submission/configured-submission.ts):
// when its files change, and on SIGHUP. The client reads which certificate the implicit TLS
// port presents to a new connection.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, readFile } from 'node:fs/promises';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { once } from 'node:events';
import { makeSelfSignedCert, type SelfSignedCert } from '../support/self-signed-cert.ts';
import { captureLog, type CapturedLog } from '../support/captured-log.ts';
import { startService } from '../support/service.ts';

async function cert(t: TestContext, name: string): Promise<SelfSignedCert> {
  const made = await makeSelfSignedCert(name);
  t.after(() => made.remove());
  return made;
}

/** The subject of the certificate a new TLS connection to `port` is shown. */
async function presented(port: number): Promise<string> {
  const socket = connect({ port, host: '127.0.0.1', rejectUnauthorized: false });
  await once(socket, 'secureConnect');
  const subject = socket.getPeerX509Certificate()?.subject ?? '';
  socket.destroy();
  return subject;
}

const subjectOf = async (file: string): Promise<string> => new X509Certificate(await readFile(file)).subject;

async function until(what: () => Promise<boolean>, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await what())) {
    assert.ok(Date.now() < deadline, 'the renewed certificate was presented in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function serving(t: TestContext): Promise<{ port: number; live: SelfSignedCert; log: CapturedLog }> {
  const live = await cert(t, 'first.herald.test');
  const log = captureLog();
  const service = await startService(t, {
    logger: log.logger,
    env: { HERALD_SUBMISSIONS_PORT: '0', HERALD_SUBMISSION_HOST: '127.0.0.1', HERALD_SUBMISSION_TLS_KEY: live.keyFile, HERALD_SUBMISSION_TLS_CERT: live.certFile },
  });
  const port = service.submission?.implicitTlsPort ?? 0;
  assert.equal(await presented(port), 'CN=first.herald.test');
  return { port, live, log };
}

/** Why each reload happened, as logged. */
const reloads = (log: CapturedLog): unknown[] => log.lines.filter((line) => line.msg === 'SMTP submission certificate reloaded').map((line) => line['why']);

test('a certificate whose files are replaced is presented to the next connection', async (t) => {
  const { port, live, log } = await serving(t);
  const renewed = await cert(t, 'renewed.herald.test');
  await copyFile(renewed.keyFile, live.keyFile);
  await copyFile(renewed.certFile, live.certFile);
  await until(async () => (await presented(port)) === await subjectOf(renewed.certFile), 5000);
  assert.ok(reloads(log).some((why) => typeof why === 'string' && why.endsWith('changed')));
});

test('SIGHUP reads the certificate files again', async (t) => {
  const { port, log } = await serving(t);
  process.kill(process.pid, 'SIGHUP');
  await until(async () => reloads(log).includes('SIGHUP'), 5000);
  assert.equal(await presented(port), 'CN=first.herald.test');
});
