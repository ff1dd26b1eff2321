// Several API processes of one machine take submissions on the same port (herald-api@
// units, docs/deployment.md): the second binds beside the first (SO_REUSEPORT), and a port
// held by another program still fails the start with its variable named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { once } from 'node:events';
import { smtpTalk } from '../support/smtp-talk.ts';
import { freePort } from '../support/throwaway-servers.ts';
import { startService } from '../support/service.ts';

test('two services bind one submission port, and each greets', async (t) => {
  const port = await freePort();
  const env = { HERALD_SUBMISSION_PORT: String(port), HERALD_SUBMISSION_HOST: '127.0.0.1' };
  const first = await startService(t, { env });
  const second = await startService(t, { env });
  assert.deepStrictEqual([first.submission?.starttlsPort, second.submission?.starttlsPort], [port, port]);
  const talk = await smtpTalk(port);
  t.after(() => talk.end());
  assert.match(talk.greeting, /^220 localhost ESMTP/);
});

test('a submission port held by another program fails the start, naming HERALD_SUBMISSION_PORT', async (t) => {
  const holder = createServer();
  holder.listen(0, '127.0.0.1');
  await once(holder, 'listening');
  t.after(() => holder.close());
  const port = (holder.address() as { port: number }).port;
  await assert.rejects(startService(t, { env: { HERALD_SUBMISSION_PORT: String(port), HERALD_SUBMISSION_HOST: '127.0.0.1' } }), {
    name: 'ConfigError',
    message: `HERALD_SUBMISSION_PORT: port ${port} on 127.0.0.1 is already in use (by another herald or another program); stop it or choose another port`,
  });
});
