import type { ParseArgsOptionsConfig } from 'node:util';
import type { AuthDeps } from '../app/sessions.ts';
import { ok, type Result } from '../domain/result.ts';

// What every CLI command is made of, and the helpers their flags share. Each command
// turns its flags into the body the operator API takes and runs the same use case, so
// validation is the API's own; main.ts puts the flag's name and value on its refusals.

/** What a command prints: `json` with --json, `text` otherwise. */
export interface Printed {
  readonly json: unknown;
  readonly text: string;
}

export type Values = Readonly<Record<string, string | boolean | string[] | undefined>>;

interface CommandShape {
  readonly usage: string;
  /** One line for the command lists and `--help`. */
  readonly summary: string;
  /** Names of the positional arguments, all required. */
  readonly positionals: readonly string[];
  /** The name of any number of further positional arguments (`DOMAIN...`), when the command takes them. */
  readonly rest?: string;
  readonly options: ParseArgsOptionsConfig;
  /** API field → flag, so a refusal that names a field names the flag (and its value) instead. */
  readonly flagOf?: Readonly<Record<string, string>>;
}

/** A command over the database: main.ts opens the store for it and closes it after. */
export interface StoreCommand extends CommandShape {
  readonly needsStore: true;
  readonly run: (deps: AuthDeps, args: readonly string[], values: Values) => Promise<Result<Printed>>;
}

/** A command that never touches the database (config), so it works without one. */
export interface PlainCommand extends CommandShape {
  readonly needsStore: false;
  readonly run: (args: readonly string[], values: Values) => Promise<Result<Printed>>;
}

/** A command that opens the database only if it calls `openDeps` (main.ts closes it after). */
export interface OnDemandStoreCommand extends CommandShape {
  readonly needsStore: 'on-demand';
  readonly run: (openDeps: () => Promise<AuthDeps>, args: readonly string[], values: Values) => Promise<Result<Printed>>;
}

export type Command = StoreCommand | PlainCommand | OnDemandStoreCommand;

/** A command over the database, taking no positional arguments or flags unless it names them. */
export function storeCommand(
  command: Omit<StoreCommand, 'needsStore' | 'positionals' | 'options'> & Partial<Pick<StoreCommand, 'positionals' | 'options'>>,
): StoreCommand {
  return { positionals: [], options: {}, ...command, needsStore: true };
}

/** A flag whose value the CLI itself cannot read: `--messages: "ten" is not a whole number`. */
export class FlagError extends Error {
  override name = 'FlagError';
}

/**
 * `--flag: "value" problem`, the one way a refusal names what the operator typed;
 * `label` is the flag with its dashes, or a positional's name (`DOMAIN`).
 */
export function flagMessage(label: string, value: Values[string], problem: string): string {
  const shown = typeof value === 'string' ? ` ${JSON.stringify(value)}` : '';
  // "must…"/"is…" read on from the value; anything else is a sentence of its own.
  return /^(must|is|are|has)\b/.test(problem) || shown === '' ? `${label}:${shown} ${problem}` : `${label}:${shown}: ${problem}`;
}

export const str = (value: Values[string]): string | undefined => (typeof value === 'string' ? value : undefined);

/** A whole number, or undefined when the flag is absent. */
export function wholeNumberFlag(values: Values, flag: string): number | undefined {
  const raw = str(values[flag]);
  if (raw === undefined) return undefined;
  if (!/^-?[0-9]+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new FlagError(flagMessage(`--${flag}`, raw, 'is not a whole number'));
  return Number(raw);
}

/** `true` or `false`, or undefined when the flag is absent. */
export function booleanFlag(values: Values, flag: string): boolean | undefined {
  const raw = str(values[flag]);
  if (raw === undefined) return undefined;
  if (raw !== 'true' && raw !== 'false') throw new FlagError(flagMessage(`--${flag}`, raw, 'is not true or false'));
  return raw === 'true';
}

/** One of `choices`, or undefined when the flag is absent. */
export function choiceFlag<T extends string>(values: Values, flag: string, choices: readonly T[]): T | undefined {
  const raw = str(values[flag]);
  if (raw === undefined) return undefined;
  if (!(choices as readonly string[]).includes(raw)) throw new FlagError(flagMessage(`--${flag}`, raw, `is not one of: ${choices.join(', ')}`));
  return raw as T;
}

/** A comma-separated list (spaces around entries dropped; `""` is the empty list), or undefined when the flag is absent. */
export function listFlag(values: Values, flag: string): string[] | undefined {
  const raw = str(values[flag]);
  if (raw === undefined) return undefined;
  return raw.trim() === '' ? [] : raw.split(',').map((entry) => entry.trim());
}

/** Drops absent flags, so the body holds only what the operator gave. */
export function compact(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

export const printed = (json: unknown, text: readonly string[]): Result<Printed> => ok({ json, text: text.join('\n') + '\n' });

/** A use case's answer printed as it is (`--json`) or as `text` says, or its refusal. */
export const printedAs = <T>(result: Result<T>, text: (value: T) => readonly string[]): Result<Printed> =>
  (result.ok ? printed(result.value, text(result.value)) : result);
