import { EventEmitter, once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSmsc } from '../test/peers/smsc.ts';
import { startChild } from './lib/child.ts';
import { harness, parseBenchOptions, progress, report, rerunCommand, seconds, whenCount, type Figure } from './lib/common.ts';
import type { HeraldReady, HeraldStats } from './lib/herald-child.ts';
import { postMany } from './lib/http-load.ts';
import { printProfile } from './lib/profile-summary.ts';
import type { SqlTiming } from './lib/sql-timing.ts';
import { smsRequest } from './lib/sms-content.ts';
import type { SmppChildStart, SmppPrepare } from './lib/smpp-child.ts';

// SMS, end to end: N one-segment SMS from HTTP accept (POST /v1/sms/send over a
// listening socket, one number per request, a fixed number of concurrent fetch clients)
// to their submit_sm at the SMSC stand-in, herald on a SQLite file in the temporary
// directory with HERALD_SMS_TRANSPORT=smpp://…?window=50&throughput=0. Baseline, in the
// same run: a raw `smpp` client session with the same window submitting N equivalent
// submit_sm into the same SMSC. Sender and baseline run in a child process; the SMSC
// and the HTTP clients run here.

export const NAME = 'sms-e2e';
const DEFAULTS = { n: 5000, clients: 16 };
const WINDOW = 50;
const CREDENTIALS = { systemId: 'sys', password: 'pw' };

export async function smsE2e(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const { n, clients } = options;
  const warmup = Math.min(200, n);
  const rerun = rerunCommand(NAME, options, DEFAULTS);

  return harness(NAME, options.timeoutS, rerun, async ({ budget, defer, onAbort }) => {
    const smsc = await startSmsc(CREDENTIALS);
    defer(() => smsc.close());
    const events: EventEmitter = smsc.events;
    const submitted = (target: number, what: string): Promise<number> =>
      budget.within(
        whenCount(() => smsc.submits.length, target, (check) => {
          events.on('submit', check);
          return () => events.off('submit', check);
        }),
        () => `${what} (${smsc.submits.length} of ${target} submit_sm at the SMSC)`,
      );
    const takeSubmits = (): number => smsc.submits.splice(0).length;

    // ---- Baseline: one raw smpp session → SMSC, measured before and after herald (the
    // machine's noise then weighs on both sides alike); the session idles in between.
    progress(`baseline: raw smpp session, window ${WINDOW}, ${n} submits (+${n} warm-up), before and after herald`);
    const client = await budget.within(
      startChild<Record<string, never>>(new URL('./lib/smpp-child.ts', import.meta.url), {
        env: { BENCH_SMPP: JSON.stringify({ port: smsc.port, ...CREDENTIALS } satisfies SmppChildStart) },
        signal: budget.signal,
      }),
      () => 'starting the baseline',
    );
    onAbort(() => client.kill());
    defer(() => client.close());
    let sent = 0;
    const baselineRound = async (count: number, what: string): Promise<{ rate: number; ms: number }> => {
      await budget.within(client.call('prepare', { from: sent, count } satisfies SmppPrepare), () => `building the submits of ${what}`);
      sent += count;
      const started = performance.now();
      const done = client.call('send', { window: WINDOW });
      done.catch(() => {}); // awaited below; an aborted run must not leave it unhandled
      const ended = await submitted(count, what);
      await budget.within(done, () => `${what} finished`);
      takeSubmits();
      return { rate: count / ((ended - started) / 1000), ms: ended - started };
    };
    // The raw session is so fast that a short warm-up leaves it half-compiled: warm it with a full round.
    await baselineRound(n, 'the baseline warm-up');
    const before = await baselineRound(n, 'the baseline (before herald)');
    progress(`baseline before herald: ${before.rate.toFixed(0)} submits/s`);

    // ---- herald: HTTP accept → SQLite file → outbox worker → SMPP → SMSC.
    const dir = await mkdtemp(join(tmpdir(), 'herald-bench-'));
    defer(() => rm(dir, { recursive: true, force: true }));
    const profileDir = options.profile ? await mkdtemp(join(tmpdir(), 'herald-bench-profile-')) : '';
    const databaseUrl = `sqlite:${join(dir, 'herald.db')}`;
    progress(`herald: ${databaseUrl}, ${clients} HTTP clients, ${n} SMS (+${warmup} warm-up)`);
    const bindsBefore = smsc.binds.length;
    const bound = once(events, 'bind');
    const herald = await budget.within(
      startChild<HeraldReady>(new URL('./lib/herald-child.ts', import.meta.url), {
        env: {
          HERALD_DATABASE_URL: databaseUrl,
          HERALD_HOST: '127.0.0.1',
          HERALD_PORT: '0',
          HERALD_PUBLIC_URL: 'https://herald.example.com',
          HERALD_ADMIN_TOKEN: 'bench-admin-token-0123456789',
          HERALD_SMS_TRANSPORT: smsc.url(`?window=${WINDOW}&throughput=0`),
          HERALD_LOG_LEVEL: options.logLevel,
          BENCH_MESSAGES_LEFT: String(n + warmup),
          BENCH_SQL_TIMING: options.profile ? 'on' : 'off',
        },
        execArgv: options.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
        signal: budget.signal,
      }),
      () => 'starting herald',
    );
    onAbort(() => herald.kill());
    defer(() => herald.close());
    if (smsc.binds.length === bindsBefore) await budget.within(bound, () => 'herald binding to the SMSC');
    const url = `http://127.0.0.1:${herald.ready.port}/v1/sms/send`;
    const post = (count: number, offset: number) =>
      budget.within(
        postMany({ url, apiKey: herald.ready.apiKey, count, offset, clients, body: smsRequest, signal: budget.signal }),
        () => `posting to herald (${smsc.submits.length} submit_sm at the SMSC so far)`,
      );

    await post(warmup, 0);
    await submitted(warmup, 'warming up herald');
    takeSubmits();
    const load = await post(n, warmup);
    const heraldEnd = await submitted(n, 'herald submitted');
    takeSubmits();
    const stats = await budget.within(herald.call<HeraldStats>('stats', { waitMs: 10_000 }), () => 'herald recorded the outcomes');
    const sql = options.profile ? await budget.within(herald.call<SqlTiming[]>('sqlTimings'), () => 'reading the SQL timings') : [];
    await budget.within(herald.close(), () => 'closing herald');
    const heraldRate = n / ((heraldEnd - load.startedAt) / 1000);
    progress(`herald: ${heraldRate.toFixed(0)} submits/s`);

    const after = await baselineRound(n, 'the baseline (after herald)');
    progress(`baseline after herald: ${after.rate.toFixed(0)} submits/s`);
    await budget.within(client.close(), () => 'closing the baseline');
    const baselineRate = (before.rate + after.rate) / 2;
    const acceptRate = n / ((load.finishedAt - load.startedAt) / 1000);

    const shared = { n, warmup, segments: 1, window: WINDOW, smsc: 'test/peers/smsc.ts on loopback, in the load generator process' };
    const heraldConditions = {
      ...shared, clients, transport: `smpp window=${WINDOW} throughput=0`, database: 'sqlite file in os.tmpdir (WAL, synchronous=FULL)',
      logLevel: `${options.logLevel} (stdout to /dev/null)`, seconds: seconds(heraldEnd - load.startedAt), messageStatuses: stats.statuses,
    };
    const baselineConditions = {
      ...shared, warmup: n, sender: 'raw smpp client session, PDUs built beforehand',
      aggregate: 'mean of a round before and a round after herald', before: Number(before.rate.toFixed(1)), after: Number(after.rate.toFixed(1)),
      seconds: [seconds(before.ms), seconds(after.ms)],
    };
    const figures: Figure[] = [
      { name: `${NAME}.herald`, value: heraldRate, unit: 'submits/s', conditions: heraldConditions },
      { name: `${NAME}.baseline`, value: baselineRate, unit: 'submits/s', conditions: baselineConditions },
      { name: `${NAME}.ratio`, value: heraldRate / baselineRate, unit: 'herald/baseline', conditions: { n, clients, window: WINDOW } },
      {
        name: `${NAME}.accept`, value: acceptRate, unit: 'requests/s',
        conditions: { n, clients, seconds: seconds(load.finishedAt - load.startedAt), while: 'the worker delivers at the same time', database: heraldConditions.database, logLevel: heraldConditions.logLevel },
      },
    ];
    report(`${NAME}: ${n} SMS, HTTP accept → submit_sm at the SMSC`, figures, [
      `herald ${heraldConditions.seconds} s; baseline before ${before.rate.toFixed(0)}/s (${seconds(before.ms)} s), after ${after.rate.toFixed(0)}/s (${seconds(after.ms)} s)`,
      `herald message statuses: ${JSON.stringify(stats.statuses)}, outbox rows left: ${stats.outbox}`,
    ]);

    if (options.profile) await printProfile(NAME, sql, profileDir);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await smsE2e(process.argv.slice(2));
