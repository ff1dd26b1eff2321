// The monitoring files of deploy/: the Grafana dashboard is valid JSON whose every
// expression names series herald exports, and so does every rule of the Prometheus
// alerts (their behaviour is tested by promtool: test/metrics/series.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createMetrics } from '../../src/metrics/registry.ts';

const SERIES = /\b((?:herald|nodejs|process)_[a-z0-9_]+)/g;
const HISTOGRAM_SUFFIX = /_(bucket|sum|count)$/;

/** Every family a fresh registry declares (`# TYPE name kind`), and the histograms among them. */
async function exportedFamilies(): Promise<{ all: Set<string>; histograms: Set<string> }> {
  const metrics = createMetrics();
  const text = await metrics.scrape();
  metrics.close();
  const declared = text.split('\n').filter((line) => line.startsWith('# TYPE ')).map((line) => line.split(' '));
  return {
    all: new Set(declared.map((parts) => parts[2] ?? '')),
    histograms: new Set(declared.filter((parts) => parts[3] === 'histogram').map((parts) => parts[2] ?? '')),
  };
}

/** The series names of PromQL text, histogram samples as their family (`x_bucket` → `x`). */
function seriesOf(text: string, histograms: Set<string>): string[] {
  return [...text.matchAll(SERIES)].map((match) => {
    const name = match[1] ?? '';
    const family = name.replace(HISTOGRAM_SUFFIX, '');
    return histograms.has(family) ? family : name;
  });
}

interface Panel { readonly type: string; readonly title: string; readonly targets?: readonly { readonly expr: string }[] }

test('the Grafana dashboard is valid JSON whose every expression names series herald exports, and shows every herald series', async () => {
  const dashboard = JSON.parse(readFileSync(new URL('../../deploy/grafana/herald.json', import.meta.url), 'utf8')) as {
    title: string; uid: string; panels: readonly Panel[]; templating: { list: readonly { query?: unknown }[] };
  };
  assert.equal(dashboard.uid, 'herald-overview');
  const { all, histograms } = await exportedFamilies();
  const expressions = [
    ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
    ...dashboard.templating.list.map((variable) => JSON.stringify(variable.query ?? '')),
  ];
  const named = new Set(expressions.flatMap((expr) => seriesOf(expr, histograms)));
  assert.deepStrictEqual([...named].filter((name) => !all.has(name)), []);
  assert.deepStrictEqual([...all].filter((name) => name.startsWith('herald_') && !named.has(name)), []);
  // Every panel but the rows queries something.
  assert.deepStrictEqual(dashboard.panels.filter((panel) => panel.type !== 'row' && (panel.targets ?? []).length === 0).map((panel) => panel.title), []);
});

test('every series the alert rules name is one herald exports', async () => {
  const rules = readFileSync(new URL('../../deploy/prometheus/alerts.yml', import.meta.url), 'utf8');
  const { all, histograms } = await exportedFamilies();
  const named = new Set(seriesOf(rules, histograms));
  assert.equal(named.size > 5, true);
  assert.deepStrictEqual([...named].filter((name) => !all.has(name)), []);
});
