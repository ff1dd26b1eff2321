import { UsageError } from './lib/common.ts';

// `npm run bench` runs every benchmark; `npm run bench -- <name> [flags]` runs one.

const BENCHES: Record<string, () => Promise<(args: readonly string[]) => Promise<number>>> = {
  accept: async () => (await import('./accept.ts')).accept,
  memory: async () => (await import('./memory.ts')).memory,
  'email-e2e': async () => (await import('./email-e2e.ts')).emailE2e,
  'sms-e2e': async () => (await import('./sms-e2e.ts')).smsE2e,
  webhooks: async () => (await import('./webhooks.ts')).webhooks,
  audience: async () => (await import('./audience.ts')).audience,
  campaign: async () => (await import('./campaign.ts')).campaign,
  storage: async () => (await import('./storage.ts')).storage,
  'metrics-scrape': async () => (await import('./metrics-scrape.ts')).metricsScrape,
  templates: async () => (await import('./templates.ts')).templates,
  'messages-log': async () => (await import('./messages-log.ts')).messagesLog,
  'big-store': async () => (await import('./big-store.ts')).bigStore,
};

const USAGE = `usage: npm run bench [-- <name> [flags]]
  names: ${Object.keys(BENCHES).join(', ')} (none: all of them, one after the other)
  flags: --n <count>        messages measured (default: email 2000, sms 5000, webhooks 20000 events; or BENCH_N)
         --clients <count>  concurrent HTTP clients posting to herald (default 16; webhooks: receipts recorded at a time)
         --timeout <s>      time budget of each benchmark (default: accept 300, memory 180, e2e 300)
         --db all|sqlite|postgres  stores herald runs on (default all: sqlite, and postgres when TEST_POSTGRES_URL is set)
         --connections <list>  accept: load levels, comma-separated (default 10,50,100; memory loads at the highest)
         --duration <s>     accept, memory: measured seconds per level (default 5; memory 10)
         --warmup <s>       accept: unmeasured seconds before each level (default 1)
         --worker on|off    accept, memory: herald's outbox worker delivers during the load (default on)
         --channels <list>  accept: email,sms,whatsapp (default all three)
         --log-level <lvl>  herald's HERALD_LOG_LEVEL, stdout to /dev/null (default info)
         --dkim on|off      email: DKIM-sign on both sides (default on)
         --profile          CPU-profile the herald process and print where its time went
`;

const [first, ...rest] = process.argv.slice(2);
const names = first === undefined || first.startsWith('--') ? Object.keys(BENCHES) : [first];
const args = first === undefined || first.startsWith('--') ? process.argv.slice(2) : rest;

if (names.some((name) => !Object.hasOwn(BENCHES, name)) || args.includes('--help') || args.includes('-h')) {
  process.stderr.write((first !== undefined && !first.startsWith('-') && !Object.hasOwn(BENCHES, first) ? `unknown benchmark "${first}"\n` : '') + USAGE);
  process.exit(2);
}

let code = 0;
for (const name of names) {
  const load = BENCHES[name];
  if (load === undefined) continue;
  try {
    code = Math.max(code, await (await load())(args));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${error.message}\n${USAGE}`);
    process.exit(2);
  }
}
process.exitCode = code;
