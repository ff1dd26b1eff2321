import Handlebars from 'handlebars';
import { harness, parseBenchOptions, progress, report, rerunCommand, type BenchDefaults, type Figure } from './lib/common.ts';
import { createTemplateEngine } from '../src/domain/email-template.ts';
import { DEFAULT_LIMITS } from '../src/domain/request-limits.ts';
import { parseSmsRequest, segmentCount, splitSegments } from '../src/domain/sms-request.ts';
import { toGsm7 } from '../src/domain/gsm7.ts';

// Templates and SMS text, in process (no HTTP): herald's template scanner and renderer
// against the Handlebars 4 compiler it replaced (the baseline, with the options herald
// used), and the SMS request's one GSM pass against the three conversions it replaced
// (toGsm7, then segmentCount and splitSegments, each converting again). Each figure is
// the median of --n runs on fresh sources (nothing cached), after a warm-up of 5.

export const NAME = 'templates';
const DEFAULTS: BenchDefaults = { n: 21, clients: 1, timeoutS: 300 };
const NUMBER = '+34612345678';

const hbs = Handlebars.create();
const KNOWN_HELPERS = { if: true, unless: true, each: false, with: false, log: false, lookup: false, helperMissing: false, blockHelperMissing: false };

function handlebarsCompileAndRender(source: string, mode: 'html' | 'text', variables: Record<string, string>): string {
  const template = hbs.compile<Record<string, string>>(source, { noEscape: mode === 'text', strict: false, knownHelpersOnly: true, knownHelpers: KNOWN_HELPERS });
  return template(variables);
}

const engine = createTemplateEngine({
  template: { maxLength: DEFAULT_LIMITS.maxTemplateLength, maxPlaceholders: DEFAULT_LIMITS.maxTemplatePlaceholders, maxDepth: DEFAULT_LIMITS.maxTemplateDepth },
  maxSubjectLength: DEFAULT_LIMITS.maxSubjectLength, maxRenderedLength: DEFAULT_LIMITS.maxRenderedLength, cacheBytes: 0,
});

function heraldCompileAndRender(source: string, mode: 'html' | 'text', variables: Record<string, string>): string {
  const compiled = engine.compile(source, mode);
  if (!compiled.ok) throw new Error(`refused: ${compiled.rejection.code}`);
  const rendered = engine.render(compiled.value, variables);
  if (!rendered.ok) throw new Error(`refused: ${rendered.rejection.code}`);
  return rendered.value;
}

/** Median milliseconds of `runs` calls, each on a source of its own (`make(i)`), after 5 unmeasured. */
function median(runs: number, make: (i: number) => string, work: (source: string) => unknown): number {
  for (let i = 0; i < 5; i++) work(make(-1 - i));
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const source = make(i);
    const start = performance.now();
    work(source);
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)] ?? 0;
}

const NEWSLETTER = (i: number): string =>
  `<html><body><h1>Hello {{first_name}} (${i})</h1>` +
  Array.from({ length: 50 }, (_, k) => `\n  {{#if item${k}}}\n  <p style="margin:0 0 8px">Item ${k}: {{item${k}}} — ${'lorem ipsum '.repeat(40)}</p>\n  {{/if}}`).join('') +
  '\n<p>{{! footer }}<a href="{{unsubscribe_url}}">Unsubscribe</a></p></body></html>';

export async function templates(args: readonly string[]): Promise<number> {
  const options = parseBenchOptions(args, DEFAULTS);
  const rerun = rerunCommand(NAME, options, DEFAULTS);
  return harness(NAME, options.timeoutS, rerun, async () => {
    const runs = options.n;
    const variables: Record<string, string> = { a: 'value', first_name: 'Ada', unsubscribe_url: 'https://example.com/u/1' };
    for (let k = 0; k < 50; k += 2) variables[`item${k}`] = `thing <${k}>`;
    const cases: readonly { name: string; make: (i: number) => string; mode: 'html' | 'text' }[] = [
      { name: 'newsletter (26 KB, 105 tags, 50 standalone blocks)', make: NEWSLETTER, mode: 'html' },
      { name: '1,000 placeholders', make: (i) => `${i} ` + '<b>{{a}}</b> '.repeat(1000), mode: 'html' },
      { name: '5,000 placeholders (the default limit)', make: (i) => `${i} ` + '{{a}} '.repeat(5000), mode: 'text' },
      { name: '50 nested blocks (the default limit)', make: (i) => `${i}` + '{{#if a}}x'.repeat(50) + '{{/if}}'.repeat(50), mode: 'html' },
    ];
    const figures: Figure[] = [];
    for (const c of cases) {
      progress(c.name);
      const same = heraldCompileAndRender(c.make(0), c.mode, variables) === handlebarsCompileAndRender(c.make(0), c.mode, variables);
      if (!same) throw new Error(`${c.name}: herald and Handlebars render differently`);
      const herald = median(runs, c.make, (source) => heraldCompileAndRender(source, c.mode, variables));
      const baseline = median(runs, c.make, (source) => handlebarsCompileAndRender(source, c.mode, variables));
      figures.push(
        { name: `templates.herald.${c.name}`, value: herald, unit: 'ms compile+render', conditions: { runs, mode: c.mode } },
        { name: `templates.handlebars.${c.name}`, value: baseline, unit: 'ms compile+render', conditions: { runs, mode: c.mode } },
      );
    }
    progress('refusals at the default limits');
    const refused = (name: string, make: (i: number) => string): void => {
      const ms = median(runs, make, (source) => {
        if (engine.compile(source, 'html').ok) throw new Error(`${name}: accepted`);
      });
      figures.push({ name: `templates.herald.refuse ${name}`, value: ms, unit: 'ms', conditions: { runs } });
    };
    refused('200,000 placeholders (1 MB, under the length limit: at the 5,001st tag)', (i) => `${i}` + '{{a}}'.repeat(200_000).slice(0, 1_000_000));
    refused('20,000 nested blocks (at the 51st level)', (i) => `${i}` + '{{#if a}}'.repeat(20_000) + '{{/if}}'.repeat(20_000));

    progress('SMS');
    const sms = (i: number): string => `${i} Canción “${'x'.repeat(40)}” — 😀 `.repeat(40).slice(0, 1590);
    const onePass = median(runs, sms, (message) => parseSmsRequest({ message, mobile_numbers: [NUMBER] }));
    const threePasses = median(runs, sms, (message) => {
      const text = toGsm7(message);
      return [segmentCount(text), splitSegments(text)];
    });
    // Flat, as JSON.parse gives it (a concatenation would be flattened inside the measured call).
    const nineMillion = median(Math.min(runs, 5), (i) => JSON.parse(JSON.stringify(`${i}${'é'.repeat(9_000_000)}`)) as string, (message) => parseSmsRequest({ message, mobile_numbers: [NUMBER] }));
    figures.push(
      { name: 'sms.herald.1,590 characters, one pass', value: onePass, unit: 'ms', conditions: { runs } },
      { name: 'sms.before.1,590 characters, three conversions', value: threePasses, unit: 'ms', conditions: { runs } },
      { name: 'sms.herald.refuse 9,000,000 characters', value: nineMillion, unit: 'ms', conditions: { runs: Math.min(runs, 5) } },
    );
    report('Templates and SMS text: herald against Handlebars and the former GSM path (median ms)', figures);
  });
}
