#!/usr/bin/env node
// herald's operator CLI (`npm run herald -- <command>`): the operator API's use
// cases run directly against the database named by HERALD_DATABASE_URL.
// Exit codes: 0 done, 1 refused (same texts as the API), 2 usage, 78 configuration.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, unknownSettingWarnings } from '../config.ts';
import { WIRE_TEXTS } from '../domain/wire-texts.ts';
import type { Rejection, Result } from '../domain/result.ts';
import { openAppDeps } from '../service.ts';
import { closest, commandHelp, didYouMean, groupHelp, usage } from './command-help.ts';
import { FlagError, flagMessage, type Command, type OnDemandStoreCommand, type Printed, type StoreCommand, type Values } from './command-kit.ts';
import { COMMANDS, GROUPS } from './commands.ts';

const EXIT_REFUSED = 1;
const EXIT_USAGE = 2;
const EXIT_CONFIG = 78;

/** A command line herald cannot read; `help` is printed after the message. */
class UsageError extends Error {
  override name = 'UsageError';
  readonly help: string;
  constructor(message: string, help: string) {
    super(message);
    this.help = help;
  }
}

const isHelp = (arg: string): boolean => arg === '--help' || arg === '-h';
/** --help anywhere before a `--` asks for help, whatever else the line holds. */
const asksHelp = (args: readonly string[]): boolean => args.slice(0, args.includes('--') ? args.indexOf('--') : undefined).some(isHelp);

type Found = { kind: 'command'; command: Command; rest: string[] } | { kind: 'group'; group: string; rest: string[] };

const groupOf = (name: string): string => name.split(' ')[0] ?? name;
const isGroup = (word: string | undefined): word is string => word !== undefined && [...COMMANDS.keys()].some((name) => name.includes(' ') && groupOf(name) === word);

/** The command named by the leading words, a group named alone, or a usage error with the nearest name. */
function findCommand(argv: readonly string[]): Found {
  for (const words of [2, 1]) {
    const command = COMMANDS.get(argv.slice(0, words).join(' '));
    if (command) return { kind: 'command', command, rest: argv.slice(words) };
  }
  const [first, second] = argv;
  if (isGroup(first) && (second === undefined || second.startsWith('-'))) return { kind: 'group', group: first, rest: argv.slice(1) };
  if (isGroup(first)) {
    const subs = [...COMMANDS.keys()].filter((name) => groupOf(name) === first);
    throw new UsageError(`unknown command: ${first} ${second}${didYouMean(closest(`${first} ${second}`, subs))}`, groupHelp(first, GROUPS.get(first), COMMANDS));
  }
  const typed = argv.slice(0, 2).join(' ');
  const wholeLine = closest(typed, COMMANDS.keys());
  const groupOnly = wholeLine === undefined && first !== undefined ? closest(first, GROUPS.keys()) : undefined;
  throw new UsageError(`unknown command: ${typed}${didYouMean(wholeLine ?? groupOnly)}`, usage(COMMANDS));
}

function parseCommandArgs(name: string, command: Command, rest: string[]): { positionals: string[]; values: Values } {
  const options = { ...command.options, json: { type: 'boolean' as const } };
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const unknown = code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-[^']*)'/.exec((error as Error).message)?.[1] : undefined;
    const message = unknown !== undefined
      ? `unknown flag ${unknown} for ${name}${didYouMean(closest(unknown, [...Object.keys(options), 'help'].map((o) => `--${o}`)))}`
      : (error as Error).message;
    throw new UsageError(message, commandHelp(command));
  }
  const count = parsed.positionals.length;
  const wanted = command.positionals.length;
  if (command.rest === undefined ? count !== wanted : count < wanted) {
    throw new UsageError(`expected ${command.positionals.join(' ') || 'no arguments'}: ${PREFIX} ${command.usage}`, commandHelp(command));
  }
  return { positionals: parsed.positionals, values: parsed.values as Values };
}

const PREFIX = 'npm run herald --';

/**
 * The refusal as the operator reads it: a detail that names an API field (`messagesLeft:
 * must be…`) names the flag and the value typed instead (`--messages: "-1" must be…`).
 */
function refusalText(command: Command, positionals: readonly string[], values: Values, rejection: Rejection): string {
  const detail = rejection.detail ?? WIRE_TEXTS[rejection.code];
  const match = /^([A-Za-z]+): (.*)$/s.exec(detail);
  const flag = match === null ? undefined : command.flagOf?.[match[1] ?? ''];
  if (match === null || flag === undefined) return detail;
  const position = command.positionals.indexOf(flag);
  return position >= 0 ? flagMessage(flag, positionals[position], match[2] ?? '') : flagMessage(`--${flag}`, values[flag], match[2] ?? '');
}

async function main(argv: readonly string[]): Promise<number> {
  for (const warning of unknownSettingWarnings()) process.stderr.write(`herald: warning: ${warning}\n`);
  if (argv.length === 0) throw new UsageError('no command given', usage(COMMANDS));
  if (argv[0] === 'help' || isHelp(argv[0] ?? '')) {
    process.stdout.write(usage(COMMANDS));
    return 0;
  }
  const found = findCommand(argv);
  if (found.kind === 'group') {
    const help = groupHelp(found.group, GROUPS.get(found.group), COMMANDS);
    if (!asksHelp(found.rest)) throw new UsageError(`${found.group} needs a command`, help);
    process.stdout.write(help);
    return 0;
  }
  const { command, rest } = found;
  const name = [...COMMANDS].find(([, c]) => c === command)?.[0] ?? '';
  if (asksHelp(rest)) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  const { positionals, values } = parseCommandArgs(name, command, rest);

  let result: Result<Printed>;
  try {
    result = command.needsStore === true ? await runWithStore(command, positionals, values)
      : command.needsStore === 'on-demand' ? await runWithStoreOnDemand(command, positionals, values)
      : await command.run(positionals, values);
  } catch (error) {
    if (error instanceof FlagError) throw new UsageError(error.message, `Run ${PREFIX} ${name} --help for its flags.\n`);
    throw error;
  }
  if (!result.ok) {
    process.stderr.write(`herald: ${refusalText(command, positionals, values, result.rejection)}\n`);
    return EXIT_REFUSED;
  }
  process.stdout.write(values.json === true ? `${JSON.stringify(result.value.json, null, 2)}\n` : result.value.text);
  return 0;
}

async function runWithStore(command: StoreCommand, positionals: string[], values: Values): Promise<Result<Printed>> {
  const { store, deps } = await openAppDeps(loadConfig());
  try {
    return await command.run(deps, positionals, values);
  } finally {
    await store.db.destroy();
  }
}

async function runWithStoreOnDemand(command: OnDemandStoreCommand, positionals: string[], values: Values): Promise<Result<Printed>> {
  let opened: Awaited<ReturnType<typeof openAppDeps>> | undefined;
  try {
    return await command.run(async () => (opened ??= await openAppDeps(loadConfig())).deps, positionals, values);
  } finally {
    await opened?.store.db.destroy();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    process.stderr.write(`herald: ${error.message}\n\n${error.help}`);
    process.exitCode = EXIT_USAGE;
  } else if (error instanceof ConfigError) {
    process.stderr.write(`herald: configuration error: ${error.message}\n`);
    process.exitCode = EXIT_CONFIG;
  } else {
    throw error;
  }
}
