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
