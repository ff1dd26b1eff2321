import { UsageError } from './lib/common.ts';

// `npm run bench` runs every benchmark; `npm run bench -- <name> [flags]` runs one.

const BENCHES: Record<string, () => Promise<(args: readonly string[]) => Promise<number>>> = {
  'email-e2e': async () => (await import('./email-e2e.ts')).emailE2e,
  'sms-e2e': async () => (await import('./sms-e2e.ts')).smsE2e,
};

const USAGE = `usage: npm run bench [-- <name> [flags]]
  names: ${Object.keys(BENCHES).join(', ')} (none: all of them, one after the other)
  flags: --n <count>        messages measured (default: email 2000, sms 5000; or BENCH_N)
         --clients <count>  concurrent HTTP clients posting to herald (default 16)
         --timeout <s>      time budget of each benchmark (default 120)
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
