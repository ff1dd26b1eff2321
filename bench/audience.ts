import type { AddressInfo } from 'node:net';
import { createAccount } from '../src/app/create-account.ts';
import { loadConfig } from '../src/config.ts';
import { createService } from '../src/service.ts';
import { harness, parseBenchOptions, progress, report, rerunCommand, type BenchDefaults, type Figure } from './lib/common.ts';
import { databaseKinds, freshDatabase } from './lib/databases.ts';

// The campaign audience: a CSV import of N = 100,000 contacts (email, name and three
// attribute columns, into a single opt-in list), from the first byte of the upload
// to the import's `finished` — rows/s; then POST /v1/segments/count over those
// contacts, ms per answer (median and worst of ROUNDS), for the list alone and with
// filters of each kind. herald runs in this process on a SQLite file (then on
// PostgreSQL when TEST_POSTGRES_URL is set), answering over a real socket.

export const NAME = 'audience';
const DEFAULTS: BenchDefaults = { n: 100_000, clients: 1, timeoutS: 600 };
const ROUNDS = 20;
const CITIES = ['Lima', 'Quito', 'Bogotá', 'Santiago', 'Cusco', 'Madrid', 'Porto', 'Lyon'];
const PLANS = ['free', 'pro', 'team'];

function csvOf(n: number): string {
  const rows = ['email,name,city,age,plan'];
  for (let i = 0; i < n; i += 1) rows.push(`person${i}@example${i % 97}.org,Person ${i},${CITIES[i % CITIES.length]},${18 + (i % 60)},${PLANS[i % PLANS.length]}`);
  return `${rows.join('\n')}\n`;
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

export async function audience(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const rerun = rerunCommand(NAME, options, DEFAULTS);
  return harness(NAME, options.timeoutS, rerun, async (h) => {
    const figures: Figure[] = [];
    const csv = csvOf(options.n);
    for (const kind of databaseKinds(options.db)) {
      const database = await freshDatabase(kind);
      h.defer(() => database.drop());
      const config = loadConfig({ HERALD_DATABASE_URL: database.url, HERALD_LOG_LEVEL: options.logLevel });
      const service = await createService(config, { logger: false, worker: false });
      h.defer(() => service.close());
      await service.http.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(service.http.server.address() as AddressInfo).port}`;
      const { apiKey } = await createAccount(service.deps, { name: 'bench', messagesLeft: 0, rateLimitPerSecond: 100_000 });
      const call = async (method: string, path: string, body?: string, type = 'application/json'): Promise<{ status: number; json: Record<string, unknown> }> => {
        const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${apiKey.apiKey}`, ...(body === undefined ? {} : { 'content-type': type }) }, ...(body === undefined ? {} : { body }) });
        return { status: res.status, json: (await res.json()) as Record<string, unknown> };
      };
      const list = String((await call('POST', '/v1/lists', JSON.stringify({ name: 'Everyone', optin: 'single' }))).json['list_id']);

      progress(`${kind}: importing ${options.n} rows (${(csv.length / 1e6).toFixed(1)} MB)`);
      const started = performance.now();
      const accepted = await call('POST', `/v1/contacts/imports?list_id=${list}`, csv, 'text/csv');
      if (accepted.status !== 202) throw new Error(`import refused: ${JSON.stringify(accepted.json)}`);
      const answeredMs = performance.now() - started;
      const id = String(accepted.json['import_id']);
      let view: Record<string, unknown> = {};
      await h.budget.within((async () => {
        for (;;) {
          view = (await call('GET', `/v1/contacts/imports/${id}`)).json;
          if (view['status'] !== 'running') return;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })(), () => `waiting for the ${kind} import`);
      const importS = (performance.now() - started) / 1000;
      if (view['status'] !== 'finished' || view['created'] !== options.n) throw new Error(`import ended ${JSON.stringify(view)}`);
      const conditions = { store: database.description, rows: options.n, batch_rows: 1000 };
      figures.push({ name: `${kind}: import, rows/s`, value: options.n / importS, unit: 'rows/s', conditions });
      figures.push({ name: `${kind}: import upload answered (202)`, value: answeredMs, unit: 'ms', conditions });

      const segments: [string, Record<string, unknown>][] = [
        ['list only', { lists: [list] }],
        ['attribute eq', { lists: [list], filter: { field: 'attributes.city', eq: 'Lima' } }],
        ['and(eq, gt, in)', { lists: [list], filter: { and: [{ field: 'attributes.city', eq: 'Lima' }, { field: 'attributes.age', gt: 40 }, { field: 'attributes.plan', in: ['pro', 'team'] }] } }],
        ['email contains', { lists: [list], filter: { field: 'email', contains: 'example7' } }],
        ['not opened (engagement)', { lists: [list], filter: { not: { opened: '01a20000-0000-7000-8000-00000000c0de' } } }],
      ];
      for (const [label, body] of segments) {
        const times: number[] = [];
        let contacts = 0;
        for (let round = 0; round <= ROUNDS; round += 1) {
          const t0 = performance.now();
          const res = await call('POST', '/v1/segments/count', JSON.stringify(body));
          if (res.status !== 200) throw new Error(`count refused: ${JSON.stringify(res.json)}`);
          contacts = Number(res.json['contacts']);
          // The first answer warms the caches and is not counted.
          if (round > 0) times.push(performance.now() - t0);
        }
        figures.push({ name: `${kind}: segment count, ${label} (median)`, value: median(times), unit: 'ms', conditions: { ...conditions, contacts, rounds: ROUNDS } });
        figures.push({ name: `${kind}: segment count, ${label} (worst)`, value: Math.max(...times), unit: 'ms', conditions: { ...conditions, contacts, rounds: ROUNDS } });
      }
    }
    report(`audience: import ${options.n} contacts, count segments over them`, figures, ['counts are HTTP round trips on 127.0.0.1, the first of each kind unmeasured']);
  });
}
