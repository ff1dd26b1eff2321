// Direction of imports in src/ (docs/architecture.md, "Rules of the house"), checked by
// test/architecture/dependency-rules.test.ts. Type-only imports count: a type cycle is still a cycle.

/** Everything in src/ except the given folders and root files: what a layer may NOT import. */
function outside(folders, files = []) {
  const allowed = [...folders.map((folder) => `${folder}/`), ...files].join('|');
  return { path: '^src/', pathNot: `^src/(${allowed})` };
}

// Leaves any layer above domain may use: the bounded caches, the metric types, the Redis connection.
const LEAVES = ['cache', 'metrics', 'i18n'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'A cycle is a bug, type-only imports included.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'domain-imports-only-domain',
      comment: 'domain/ is pure: wire texts, validation, money; it knows no other layer.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: outside(['domain', 'cache']),
    },
    {
      name: 'campaigns-imports-only-domain',
      comment: 'campaigns/ holds the pure audience rules; the runners that do I/O live in queue/.',
      severity: 'error',
      from: { path: '^src/campaigns/' },
      to: outside(['campaigns', 'domain', 'cache']),
    },
    {
      name: 'i18n-imports-only-domain',
      comment: 'herald\'s own texts in each language (catalogues read once at start): a leaf for app/ and http/.',
      severity: 'error',
      from: { path: '^src/i18n/' },
      to: outside(['i18n', 'domain']),
    },
    {
      name: 'metrics-imports-only-domain',
      comment: 'The metric registry is a leaf every layer above domain may count into.',
      severity: 'error',
      from: { path: '^src/metrics/' },
      to: outside(['metrics', 'domain', 'cache']),
    },
    {
      name: 'store-imports-domain-campaigns',
      comment: 'store/ knows rows and the shapes it stores, never a use case or a transport.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: outside(['store', 'domain', 'campaigns', ...LEAVES]),
    },
    {
      name: 'channels-imports-only-domain',
      comment: 'A transport says what the peer said; billing and retries are decided elsewhere.',
      severity: 'error',
      from: { path: '^src/channels/' },
      to: outside(['channels', 'domain', ...LEAVES], ['redis-client\\.ts$']),
    },
    {
      name: 'app-imports-domain-store-channels',
      comment: 'Use cases: domain rules decide, the store records; no route, job or wiring.',
      severity: 'error',
      from: { path: '^src/app/' },
      to: outside(['app', 'domain', 'campaigns', 'store', 'channels', ...LEAVES]),
    },
    {
      name: 'queue-sits-beside-app',
      comment: 'Background work claims leased rows and calls use cases and transports.',
      severity: 'error',
      from: { path: '^src/queue/' },
      to: outside(['queue', 'app', 'store', 'domain', 'campaigns', 'channels', 'webhooks', ...LEAVES]),
    },
    {
      name: 'http-never-imports-store',
      comment: 'Routes parse, authenticate and call one use case; the store is behind app/.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: outside(['http', 'app', 'domain', 'campaigns', ...LEAVES], ['redis-client\\.ts$']),
    },
    {
      name: 'inbound-never-imports-store',
      comment: 'The inbound listener is an entry point like http/: it calls use cases.',
      severity: 'error',
      from: { path: '^src/inbound/' },
      to: outside(['inbound', 'app', 'domain', 'campaigns', ...LEAVES], ['config\\.ts$', 'smtp-listen\\.ts$', 'smtp-enhanced-codes\\.ts$']),
    },
    {
      name: 'submission-never-imports-store',
      comment: 'SMTP submission is an entry point like http/: it speaks the protocol and calls use cases.',
      severity: 'error',
      from: { path: '^src/submission/' },
      to: outside(['submission', 'app', 'domain', 'campaigns', ...LEAVES], ['config\\.ts$', 'smtp-listen\\.ts$', 'smtp-enhanced-codes\\.ts$']),
    },
    {
      name: 'cli-never-imports-store',
      comment: 'Operator commands run the same use cases; cli/main.ts is the CLI\'s composition root.',
      severity: 'error',
      from: { path: '^src/cli/', pathNot: '^src/cli/main\\.ts$' },
      to: outside(['cli', 'app', 'domain', 'campaigns', ...LEAVES], ['config\\.ts$']),
    },
    {
      name: 'webhooks-imports-only-domain',
      comment: 'webhooks/ holds the signature scheme, a pure function of secret and body.',
      severity: 'error',
      from: { path: '^src/webhooks/' },
      to: outside(['webhooks', 'domain', 'cache']),
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs'],
    },
  },
};
