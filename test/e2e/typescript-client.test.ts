// The TypeScript example of docs/sending-examples.md: a client generated from the
// running service's OpenAPI document with openapi-typescript, the example type-checked
// against it with tsc, then each of its sends made over HTTP with openapi-fetch.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO, runToEnd } from '../support/child-process.ts';
import { addWhatsappTemplate, openAccount, startService } from '../support/service.ts';

/** The example's functions, as this test calls them (the file itself is checked by tsc against the generated client). */
interface Example {
  heraldClient(baseUrl: string, apiKey: string): unknown;
  sendEmail(herald: unknown): Promise<string[]>;
  sendSms(herald: unknown): Promise<string[]>;
  sendWhatsappTemplate(herald: unknown, templateId: string): Promise<string | undefined>;
  sendWhatsappMessage(herald: unknown): Promise<string | undefined>;
  messageStatus(herald: unknown, msgid: string): Promise<string>;
}

test('the TypeScript example type-checks against a client generated from the document and sends with it', async (t) => {
  const service = await startService(t);
  const account = await openAccount(service);
  const template = await addWhatsappTemplate(service, account.id);
  const address = await service.http.listen({ port: 0, host: '127.0.0.1' });

  // A project of its own beside nothing of herald's but the packages (node strips types only outside node_modules).
  const dir = mkdtempSync(join(tmpdir(), 'herald-ts-client-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(join(REPO, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
  const document = await service.http.inject({ method: 'GET', url: '/openapi.json' });
  writeFileSync(join(dir, 'openapi.json'), document.body);
  copyFileSync(join(REPO, 'docs/examples/typescript/send.ts'), join(dir, 'send.ts'));
  const generated = await runToEnd(join(REPO, 'node_modules/.bin/openapi-typescript'), [join(dir, 'openapi.json'), '-o', join(dir, 'herald-api.ts')], process.env);
  assert.equal(generated.code, 0, generated.stderr);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: join(REPO, 'tsconfig.json'), include: ['send.ts', 'herald-api.ts'] }));
  const checked = await runToEnd(join(REPO, 'node_modules/.bin/tsc'), ['-p', join(dir, 'tsconfig.json')], process.env);
  assert.equal(checked.code, 0, checked.stdout + checked.stderr);

  const example = (await import(join(dir, 'send.ts'))) as Example;
  const herald = example.heraldClient(address, account.apiKey);
  const [msgid] = await example.sendEmail(herald);
  assert.match(msgid ?? '', /^[0-9a-f-]{36}$/);
  assert.equal((await example.sendSms(herald)).length, 1);
  assert.match((await example.sendWhatsappTemplate(herald, template.id)) ?? '', /^[0-9a-f-]{36}$/);
  await assert.rejects(example.sendWhatsappMessage(herald), /^Error: herald answered 400: \{"message":"No open session with this destination"\}$/);
  assert.equal(await example.messageStatus(herald, msgid ?? ''), 'queued');
});
