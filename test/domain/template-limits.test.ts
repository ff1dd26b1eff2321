import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createTemplateEngine, type TemplateEngineOptions } from '../../src/domain/email-template.ts';

// The template engine's bounds: length, tags and depth refused while scanning (one pass,
// stopping at the first excess), renders refused before they start, the cache in bytes.

const LIMITS: TemplateEngineOptions = {
  template: { maxLength: 1000, maxPlaceholders: 4, maxDepth: 2 },
  maxSubjectLength: 50,
  maxRenderedLength: 100,
  cacheBytes: 1024 * 1024,
};

const engine = (options: Partial<TemplateEngineOptions> = {}) => createTemplateEngine({ ...LIMITS, ...options });
const code = (result: { ok: boolean; rejection?: { code: string } }): string => (result.ok ? 'ok' : (result.rejection?.code ?? ''));

test('a template of exactly the length limit compiles; one character more is templateTooLarge', () => {
  const e = engine();
  assert.equal(code(e.compile('x'.repeat(1000), 'html')), 'ok');
  assert.deepStrictEqual(e.compile('x'.repeat(1001), 'html'), { ok: false, rejection: { code: 'templateTooLarge', detail: 'at most 1000 characters' } });
});

test('a template of exactly the tag limit compiles; one tag more is templateTooManyPlaceholders', () => {
  const e = engine();
  assert.equal(code(e.compile('{{#if a}}{{b}}{{! c }}{{/if}}', 'html')), 'ok');
  assert.deepStrictEqual(e.compile('{{#if a}}{{b}}{{! c }}{{d}}{{/if}}', 'html'), {
    ok: false, rejection: { code: 'templateTooManyPlaceholders', detail: 'at most 4 {{…}} tags' },
  });
});

test('escaped braces are text, not tags', () => {
  assert.equal(code(engine().compile('\\{{a}} \\{{b}} \\{{c}} \\{{d}} \\{{e}} {{f}}', 'html')), 'ok');
});

test('blocks nested exactly to the depth limit compile; one level more is templateTooDeep', () => {
  const e = engine({ template: { maxLength: 1000, maxPlaceholders: 100, maxDepth: 2 } });
  assert.equal(code(e.compile('{{#if a}}{{#unless b}}x{{/unless}}{{/if}}{{#if c}}y{{/if}}', 'html')), 'ok');
  assert.deepStrictEqual(e.compile('{{#if a}}{{#if b}}{{#if c}}x{{/if}}{{/if}}{{/if}}', 'html'), {
    ok: false, rejection: { code: 'templateTooDeep', detail: 'at most 2 levels of blocks' },
  });
});

test('each else if of a chain counts one level, as it nests', () => {
  const e = engine({ template: { maxLength: 1000, maxPlaceholders: 100, maxDepth: 2 } });
  assert.equal(code(e.compile('{{#if a}}A{{else if b}}B{{else}}C{{/if}}', 'html')), 'ok');
  assert.equal(code(e.compile('{{#if a}}A{{else if b}}B{{else if c}}C{{/if}}', 'html')), 'templateTooDeep');
});

test('the depth returns to zero after a block closes, so siblings do not add up', () => {
  const e = engine({ template: { maxLength: 10_000, maxPlaceholders: 1000, maxDepth: 1 } });
  assert.equal(code(e.compile('{{#if a}}x{{/if}}'.repeat(100), 'html')), 'ok');
});

test('a subject longer than its limit is subjectTooLong, not templateTooLarge', () => {
  assert.deepStrictEqual(engine().renderSubject('x'.repeat(51), {}), { ok: false, rejection: { code: 'subjectTooLong', detail: 'at most 50 characters' } });
});

test('a subject whose variables could make it longer than its limit is subjectTooLong before rendering', () => {
  assert.deepStrictEqual(engine().renderSubject('{{#if a}}{{v}}{{/if}}{{v}}', { a: '1', v: 'x'.repeat(26) }), {
    ok: false, rejection: { code: 'subjectTooLong', detail: 'at most 50 characters, counting every placeholder filled' },
  });
});

test('a render whose longest result fits is done', () => {
  const e = engine();
  const compiled = e.compile('<p>{{v}}</p>', 'html');
  assert.ok(compiled.ok);
  assert.deepStrictEqual(e.render(compiled.value, { v: 'x'.repeat(93) }), { ok: true, value: `<p>${'x'.repeat(93)}</p>` });
});

test('html escaping counts toward the rendered length', () => {
  const e = engine();
  const compiled = e.compile('{{v}}', 'html');
  assert.ok(compiled.ok);
  // 20 ampersands become 100 characters; one more character is over.
  assert.equal(code(e.render(compiled.value, { v: '&'.repeat(20) })), 'ok');
  assert.deepStrictEqual(e.render(compiled.value, { v: '&'.repeat(20) + 'x' }), {
    ok: false, rejection: { code: 'renderedTooLarge', detail: 'at most 100 characters, counting every placeholder filled' },
  });
});

test('text mode counts values unescaped', () => {
  const e = engine();
  const compiled = e.compile('{{v}}', 'text');
  assert.ok(compiled.ok);
  assert.equal(code(e.render(compiled.value, { v: '&'.repeat(100) })), 'ok');
});

test('a variable placed many times counts each time', () => {
  const e = engine({ template: { maxLength: 1000, maxPlaceholders: 100, maxDepth: 2 } });
  const compiled = e.compile('{{v}}'.repeat(11), 'text');
  assert.ok(compiled.ok);
  assert.equal(compiled.value.longestRendering({ v: 'x'.repeat(10) }), 110);
  assert.equal(code(e.render(compiled.value, { v: 'x'.repeat(10) })), 'renderedTooLarge');
});

test('a compiled template is cached and found again', () => {
  const e = engine();
  const first = e.compile('Hi {{a}}', 'html');
  const second = e.compile('Hi {{a}}', 'html');
  assert.ok(first.ok && second.ok);
  assert.equal(second.value, first.value);
  assert.equal(e.cacheUsage().entries, 1);
});

test('a template refused for syntax, length, tags or depth is not cached', () => {
  const e = engine();
  for (const source of ['{{a', 'x'.repeat(1001), '{{a}}'.repeat(5), '{{#if a}}{{#if a}}{{#if a}}{{/if}}{{/if}}{{/if}}']) {
    assert.equal(e.compile(source, 'html').ok, false);
  }
  assert.deepStrictEqual(e.cacheUsage(), { entries: 0, bytes: 0 });
});

test('the cache stays within its bytes: 40 distinct templates of 100 KB in a 1 MB cache keep at most 1 MB', () => {
  const e = createTemplateEngine({ ...LIMITS, template: { maxLength: 200_000, maxPlaceholders: 10, maxDepth: 2 }, cacheBytes: 1024 * 1024 });
  for (let i = 0; i < 40; i++) assert.equal(e.compile(`${i} {{a}} ${'x'.repeat(100_000)}`, 'html').ok, true);
  const usage = e.cacheUsage();
  assert.ok(usage.bytes <= 1024 * 1024, `${usage.bytes}`);
  assert.ok(usage.entries < 40 && usage.entries > 0, `${usage.entries}`);
});

test('a template larger than the whole cache is compiled but not kept', () => {
  const e = createTemplateEngine({ ...LIMITS, template: { maxLength: 200_000, maxPlaceholders: 10, maxDepth: 2 }, cacheBytes: 1000 });
  assert.equal(e.compile('x'.repeat(10_000), 'html').ok, true);
  assert.deepStrictEqual(e.cacheUsage(), { entries: 0, bytes: 0 });
});

// At the largest values the settings take, the work stays well under a second: inputs the
// Handlebars compiler took seconds or the whole heap for are refused or read in milliseconds.
const largest = createTemplateEngine({
  template: { maxLength: 1_000_000, maxPlaceholders: 5000, maxDepth: 1000 }, maxSubjectLength: 1_000_000, maxRenderedLength: 100_000_000, cacheBytes: 0,
});

function timed(work: () => unknown): number {
  const start = performance.now();
  work();
  return performance.now() - start;
}

test('5,000 placeholders compile and render in well under a second', () => {
  let rendered = '';
  const ms = timed(() => {
    const compiled = largest.compile('{{a}}'.repeat(5000), 'text');
    assert.ok(compiled.ok);
    rendered = compiled.value.render({ a: 'xy' });
  });
  assert.equal(rendered.length, 10_000);
  assert.ok(ms < 1000, `${ms} ms`);
});

test('200,000 placeholders are refused at the 5,001st in well under a second', () => {
  let refusal = '';
  const ms = timed(() => {
    refusal = code(largest.compile('{{a}}'.repeat(200_000), 'text'));
  });
  assert.equal(refusal, 'templateTooManyPlaceholders');
  assert.ok(ms < 1000, `${ms} ms`);
});

test('1,000 nested blocks, the deepest setting, compile and render in well under a second', () => {
  const source = '{{#if a}}'.repeat(1000) + '{{v}}' + '{{/if}}'.repeat(1000);
  let rendered = '';
  const ms = timed(() => {
    const compiled = largest.compile(source, 'html');
    assert.ok(compiled.ok);
    rendered = compiled.value.render({ a: '1', v: '<x>' });
  });
  assert.equal(rendered, '&lt;x&gt;');
  assert.ok(ms < 1000, `${ms} ms`);
});

test('20,000 nested blocks are refused at the level past the limit in well under a second', () => {
  const source = '{{#if a}}'.repeat(20_000) + 'x' + '{{/if}}'.repeat(20_000);
  let refusal = '';
  const ms = timed(() => {
    refusal = code(largest.compile(source, 'html'));
  });
  assert.equal(refusal, 'templateTooDeep');
  assert.ok(ms < 1000, `${ms} ms`);
});
