// A browser story as steps: node:test subtests of the story's one test, sharing its browser
// and service, each named in words with its own time limit, so a failure names its step.
import type { TestContext } from 'node:test';

export type Step = <T = void>(name: string, timeout: number, body: () => Promise<T>) => Promise<T>;

/**
 * Steps of the story `t`. A step's value (an id, a link) is what the later steps use. The
 * steps build on each other: after one fails or runs out of time, the story stops there.
 */
export function steps(t: TestContext): Step {
  return async <T>(name: string, timeout: number, body: () => Promise<T>): Promise<T> => {
    let outcome: { value: T } | undefined;
    await t.test(name, { timeout }, async () => {
      outcome = { value: await body() };
    });
    if (outcome === undefined) throw new Error(`the story stops at the failed step “${name}”`);
    return outcome.value;
  };
}
