import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { cruise } from 'dependency-cruiser';
import type { IConfiguration, ICruiseResult, IViolation } from 'dependency-cruiser';

// The rules live in .dependency-cruiser.cjs so the command line (`npx depcruise src -c`) reads the same ones.
const require = createRequire(import.meta.url);
const configuration = require('../../.dependency-cruiser.cjs') as IConfiguration;

function describe(violation: IViolation): string {
  const rule = violation.rule.name;
  if (violation.cycle !== undefined && violation.cycle.length > 0) {
    return `${rule}: ${[violation.from, ...violation.cycle.map((step) => step.name)].join(' → ')}`;
  }
  return `${rule}: ${violation.from} → ${violation.to}`;
}

async function cruiseSource(): Promise<{ violations: string[]; unresolved: string[] }> {
  const ruleSet = { forbidden: configuration.forbidden };
  const result = await cruise(['src'], { ...configuration.options, validate: true, ruleSet });
  const output = result.output as ICruiseResult;
  const unresolved = output.modules.flatMap((module) =>
    module.dependencies.filter((dependency) => dependency.couldNotResolve).map((dependency) => `${module.source} → ${dependency.module}`),
  );
  return { violations: [...new Set(output.summary.violations.map(describe))].sort(), unresolved };
}

// One cruise (about two seconds) read by both tests.
const cruised = cruiseSource();

test('every import in src/ resolves, so no dependency escapes the rules', async () => {
  const { unresolved } = await cruised;
  assert.deepEqual(unresolved, []);
});

test('src/ breaks no dependency rule: every import goes the way of the layers, and nothing imports in a cycle', async () => {
  const { violations } = await cruised;
  assert.deepEqual(violations, []);
});
