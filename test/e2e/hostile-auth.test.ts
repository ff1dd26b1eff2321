// Sign-in as an attacker would try it, against a started service (`node src/main.ts serve`
// in a child process on loopback; client addresses set with X-Forwarded-For, which
// HERALD_TRUST_PROXY=true makes herald believe): concurrent guesses get no more tries at
// the password than the counters allow, a stranger's failures from many addresses do not
// keep the user out of their own, 100 concurrent wrong admin tokens are mostly refused
// unchecked, and the service logs no error throughout.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHerald, type HeraldProcess } from '../support/herald-process.ts';

const ADMIN_TOKEN = 'hostile-auth-admin-token-5e0c2b7d91a4';
const PASSWORD = 'correct horse battery staple';
const USER = 'ana@example.org';
/** The defaults (src/http/plugins/attempt-throttle.ts) this file is about. */
const PAIR_FREE = 5;
const ADMIN_FREE = 5;

let herald: HeraldProcess;
let dataDir: string;

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly retryAfter: string | null;
}

async function call(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${herald.url}${path}`, {
    method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after') };
}

const from = (ip: string): Record<string, string> => ({ 'x-forwarded-for': ip });
const signIn = (password: string, ip: string): Promise<Answer> => call('POST', '/v1/auth/sign-in', { email: USER, password }, from(ip));

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'herald-hostile-auth-'));
  herald = await startHerald('all', { HERALD_DATABASE_URL: `sqlite:${join(dataDir, 'herald.db')}`, HERALD_ADMIN_TOKEN: ADMIN_TOKEN, HERALD_TRUST_PROXY: 'true' });
  const asAdmin = { authorization: `Bearer ${ADMIN_TOKEN}`, ...from('198.51.100.200') };
  const created = await call('POST', '/admin/v1/accounts', { name: 'acme' }, asAdmin);
  assert.equal(created.status, 201, created.body);
  const accountId = (JSON.parse(created.body) as { account: { id: string } }).account.id;
  const invited = await call('POST', `/admin/v1/accounts/${accountId}/users`, { email: USER, role: 'owner' }, asAdmin);
  assert.equal(invited.status, 201, invited.body);
  const token = (JSON.parse(invited.body) as { invitation_url: string }).invitation_url.split('#')[1];
  const accepted = await call('POST', '/v1/auth/invitation/accept', { token, password: PASSWORD }, from('198.51.100.1'));
  assert.equal(accepted.status, 200, accepted.body);
  // The user signs in from their own address once: herald knows it from now on.
  assert.equal((await signIn(PASSWORD, '198.51.100.1')).status, 200);
});

after(async () => {
  if (herald !== undefined) {
    assert.deepStrictEqual(herald.errorLines(), []);
    await herald.kill('SIGTERM');
  }
  if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true });
});

test('50 concurrent wrong passwords and the right one from one address: at most the free tries and one more reach the password check', { timeout: 180_000 }, async () => {
  const answers = await Promise.all([
    ...Array.from({ length: 50 }, (_, i) => signIn(`wrong guess number ${i}`, '203.0.113.50')),
    signIn(PASSWORD, '203.0.113.50'),
  ]);
  const checked = answers.filter((a) => a.status !== 429);
  assert.ok(checked.length <= PAIR_FREE + 1, `${checked.length} tries reached the password check`);
  for (const a of answers.filter((x) => x.status === 429)) {
    assert.deepStrictEqual(JSON.parse(a.body), { message: 'Too many sign-in attempts, try again later' });
    assert.ok(Number(a.retryAfter) >= 1, String(a.retryAfter));
  }
});

test('a stranger failing from many addresses does not keep the user out of theirs', { timeout: 300_000 }, async () => {
  // 10 addresses × 5 wrong passwords: ten times what locked the user out everywhere before.
  // (Past the address's own count of 100: test/http/attempt-throttle.test.ts, with lowered counts.)
  const ips = Array.from({ length: 10 }, (_, i) => `203.0.113.${100 + i}`);
  const answers = (await Promise.all(ips.map(async (ip) => {
    const mine: Answer[] = [];
    for (let i = 0; i < 5; i++) mine.push(await signIn(`stranger guess ${i} from ${ip}`, ip));
    return mine;
  }))).flat();
  assert.ok(answers.every((a) => a.status === 401), 'each address had its free tries');
  const mine = await signIn(PASSWORD, '198.51.100.1');
  assert.equal(mine.status, 200, mine.body);
  // An address the user never used lets them in too: the strangers' counts are their own.
  assert.equal((await signIn(PASSWORD, '198.51.100.2')).status, 200);
});

test('100 concurrent wrong admin tokens: a few are compared, the rest refused; the operator\'s own address still gets in', { timeout: 60_000 }, async () => {
  const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => call('POST', '/admin/v1/session', { token: `guess-${i}` }, from('203.0.113.200'))));
  assert.ok(answers.filter((a) => a.status === 401).length <= ADMIN_FREE + 1);
  for (const a of answers.filter((x) => x.status !== 401)) {
    assert.equal(a.status, 429);
    assert.deepStrictEqual(JSON.parse(a.body), { message: 'Too many attempts, try again later' });
  }
  assert.equal((await call('POST', '/admin/v1/session', { token: ADMIN_TOKEN }, from('198.51.100.200'))).status, 200);
});
