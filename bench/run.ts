import { failures, formatValue, reported, textTable, UsageError, type Figure } from './lib/common.ts';

// `npm run bench` runs the suite of issue 15's figures and ends with a table of every
// target among them; `npm run bench -- <name> [flags]` runs one benchmark or one group.

type Bench = (args: readonly string[]) => Promise<number>;

const BENCHES: Record<string, () => Promise<Bench>> = {
  accept: async () => (await import('./accept.ts')).accept,
  memory: async () => (await import('./memory.ts')).memory,
  'email-e2e': async () => (await import('./email-e2e.ts')).emailE2e,
  'sms-e2e': async () => (await import('./sms-e2e.ts')).smsE2e,
  'smtp-submit': async () => (await import('./smtp-submit.ts')).smtpSubmit,
  webhooks: async () => (await import('./webhooks.ts')).webhooks,
  audience: async () => (await import('./audience.ts')).audience,
  campaign: async () => (await import('./campaign.ts')).campaign,
  storage: async () => (await import('./storage.ts')).storage,
  'metrics-scrape': async () => (await import('./metrics-scrape.ts')).metricsScrape,
  templates: async () => (await import('./templates.ts')).templates,
  'messages-log': async () => (await import('./messages-log.ts')).messagesLog,
  'big-store': async () => (await import('./big-store.ts')).bigStore,
  'wal-checkpoint': async () => (await import('./wal-checkpoint.ts')).walCheckpoint,
  batch: async () => (await import('./batch.ts')).batch,
};

/** One step of a group: a benchmark and the flags it runs with (the caller's flags come after, so they win). */
type Step = readonly [name: string, args: readonly string[]];

const GROUPS: Record<string, readonly Step[]> = {
  // Issue 15's figures, each once, in under 15 minutes on the 2-core machine: email
  // end to end at half its default N (each email round takes seconds, not milliseconds).
  suite: [
    ['accept', ['--worker', 'off', '--connections', '50']],
    ['memory', []],
    ['email-e2e', ['--n', '5000']],
    ['email-e2e', ['--n', '5000', '--dkim', 'off']],
    ['sms-e2e', []],
    ['webhooks', []],
    ['big-store', ['--rounds', '2']],
  ],
  // herald against the peers a user would pick instead (Postfix, Kannel), when installed.
  peers: [
    ['email-e2e', ['--dkim', 'off']],
    ['sms-e2e', ['--numbers', '1']],
    ['smtp-submit', []],
  ],
  all: Object.keys(BENCHES).map((name): Step => [name, []]),
};

const USAGE = `usage: npm run bench [-- <name> [flags]]
  groups: suite (the default: issue 15's figures and a table of its targets), peers (herald against
          Postfix and Kannel), all (every benchmark, one after the other)
  names:  ${Object.keys(BENCHES).join(', ')}
  flags: --n <count>        messages measured (default: email 10000, sms 20000, webhooks 20000 events, smtp-submit 5000; or BENCH_N)
         --clients <count>  concurrent HTTP clients posting to herald (default 16; sms-e2e: 50 autocannon connections, to Kannel too; webhooks: receipts recorded at a time; smtp-submit: SMTP connections)
         --timeout <s>      time budget of each benchmark (default: accept 300, memory 180, e2e 300, smtp-submit 600)
         --db all|sqlite|postgres  stores herald runs on (default all: sqlite, and postgres when TEST_POSTGRES_URL is set)
         --connections <list>  accept: load levels, comma-separated (default 10,50,100; memory loads at the highest)
         --duration <s>     accept, memory: measured seconds per level (default 5; memory 10)
         --warmup <s>       accept: unmeasured seconds before each level (default 1)
         --worker on|off    accept, memory: herald's outbox worker delivers during the load (default on)
         --channels <list>  accept: email,sms,whatsapp (default all three)
         --numbers <list>   sms-e2e: numbers per request (default 1,100)
         --rounds <count>   big-store: rounds of empty and full store loads (default 4)
         --log-level <lvl>  herald's HERALD_LOG_LEVEL, stdout to /dev/null (default info)
         --dkim on|off      email: DKIM-sign on both sides (default on)
         --profile          CPU-profile the herald process and print where its time went
`;

/** The Done-when of issue 15: the whole suite within this many seconds. */
const SUITE_LIMIT_S = 15 * 60;

const [first, ...rest] = process.argv.slice(2);
const named = first !== undefined && !first.startsWith('--');
const target = named ? first : 'suite';
const args = named ? rest : process.argv.slice(2);
const steps: readonly Step[] | undefined = GROUPS[target] ?? (Object.hasOwn(BENCHES, target) ? [[target, []]] : undefined);

if (steps === undefined || args.includes('--help') || args.includes('-h')) {
  process.stderr.write((steps === undefined ? `unknown benchmark "${target}"\n` : '') + USAGE);
  process.exit(2);
}

const started = performance.now();
let code = 0;
for (const [name, own] of steps) {
  const load = BENCHES[name];
  if (load === undefined) continue;
  try {
    code = Math.max(code, await (await load())([...own, ...args]));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
}
const wallS = (performance.now() - started) / 1000;
if (steps.length > 1) printTargets(target, reported, wallS);
process.exitCode = code;

/** Every figure that carries a target, with its verdict, then the run's wall time. */
function printTargets(group: string, figures: readonly Figure[], seconds: number): void {
  const rows = figures
    .filter((f) => typeof f.conditions.met === 'boolean')
    .map((f) => [f.name, formatValue(f.value), f.unit, String(f.conditions.target ?? ''), f.conditions.met === true ? 'met' : 'NOT MET']);
  const met = rows.filter((r) => r[4] === 'met').length;
  const out = ['', `${group}: the targets (${met} of ${rows.length} met)`, ...textTable(['figure', 'value', 'unit', 'target', 'verdict'], rows)];
  const minutes = `${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`;
  // A peer check that failed fails the run (its benchmark's exit code): said again here, under the table.
  for (const reason of failures) out.push('', reason);
  out.push('', group === 'suite' ? `whole run: ${minutes} (target < ${SUITE_LIMIT_S / 60} min: ${seconds < SUITE_LIMIT_S ? 'met' : 'NOT MET'})` : `whole run: ${minutes}`, '');
  process.stdout.write(out.join('\n'));
  process.stdout.write(JSON.stringify({ name: `${group}.wall`, value: Number(seconds.toFixed(1)), unit: 's', conditions: group === 'suite' ? { target: `< ${SUITE_LIMIT_S} s`, met: seconds < SUITE_LIMIT_S } : {} }) + '\n');
}
