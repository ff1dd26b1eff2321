// An API key is live or test (the sandbox, docs/sandbox.md). A test key's messages go
// through the capture transports whatever is configured, are never billed, are listed
// apart (GET /v1/messages?mode=test) and their webhooks carry `test: true`. The mode is
// the key row's; the visible prefix only tells people apart what they paste.

export const KEY_MODES = ['live', 'test'] as const;
export type KeyMode = (typeof KEY_MODES)[number];

/** What a test key starts with, before its JWT; live keys are the bare JWT (as they always were). */
export const TEST_KEY_PREFIX = 'test_';

export function isKeyMode(value: unknown): value is KeyMode {
  return typeof value === 'string' && (KEY_MODES as readonly string[]).includes(value);
}

/**
 * What a test key may do on a route that writes (docs/sandbox.md: a test key reads
 * everything its scopes allow, and writes only in the sandbox):
 * - `allowed`: what the route writes stays in the sandbox (test messages, captured and
 *   unbilled; the working data live and test keys share: templates, lists, contacts,
 *   suppressions added) or it only reads;
 * - `test-only`: the route acts on a thing that is live or test (a key, a campaign, a
 *   suppression of a simulator address): a test key reaches only the test ones;
 * - `refused`: the route changes the account's settings or something live.
 */
export const TEST_KEY_RULES = ['allowed', 'test-only', 'refused'] as const;
export type TestKeyRule = (typeof TEST_KEY_RULES)[number];
