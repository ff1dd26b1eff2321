#!/usr/bin/env node
// herald's operator CLI (`npm run herald -- <command>`): the operator API's use
// cases run directly against the database named by HERALD_DATABASE_URL.
// Exit codes: 0 done, 1 refused (same texts as the API), 2 usage, 78 configuration.
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, unknownSettingWarnings } from '../config.ts';
import { WIRE_TEXTS } from '../domain/wire-texts.ts';
import type { Result } from '../domain/result.ts';
import { COMMANDS, type Command, type OnDemandStoreCommand, type Printed, type StoreCommand, type Values } from './commands.ts';
import { openAppDeps } from '../service.ts';

const EXIT_REFUSED = 1;
const EXIT_USAGE = 2;
const EXIT_CONFIG = 78;

function usage(): string {
  const commands = [...COMMANDS.values()].map((c) => `  npm run herald -- ${c.usage}`);
  return ['usage:', ...commands, '', 'Every command prints one JSON document with --json.', ''].join('\n');
}

class UsageError extends Error {
  override name = 'UsageError';
}

/** The command named by the leading words, and the arguments after them. */
function findCommand(argv: readonly string[]): { command: Command; rest: string[] } {
  for (const words of [2, 1]) {
    const command = COMMANDS.get(argv.slice(0, words).join(' '));
    if (command) return { command, rest: argv.slice(words) };
  }
  throw new UsageError(argv.length === 0 ? 'no command given' : `unknown command: ${argv.slice(0, 2).join(' ')}`);
}

function parseCommandArgs(command: Command, rest: string[]): { positionals: string[]; values: Values } {
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: { ...command.options, json: { type: 'boolean' } }, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  if (parsed.positionals.length !== command.positionals.length) {
    throw new UsageError(`expected ${command.positionals.join(' ') || 'no arguments'}: npm run herald -- ${command.usage}`);
  }
  return { positionals: parsed.positionals, values: parsed.values as Values };
}

async function main(argv: readonly string[]): Promise<number> {
  for (const warning of unknownSettingWarnings()) process.stderr.write(`herald: warning: ${warning}\n`);
  if (argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(usage());
    return 0;
  }
  const { command, rest } = findCommand(argv);
  const { positionals, values } = parseCommandArgs(command, rest);

  const result = command.needsStore === true ? await runWithStore(command, positionals, values)
    : command.needsStore === 'on-demand' ? await runWithStoreOnDemand(command, positionals, values)
    : await command.run(positionals, values);
  if (!result.ok) {
    const { code, detail } = result.rejection;
    process.stderr.write(`herald: ${detail ?? WIRE_TEXTS[code]}\n`);
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
    process.stderr.write(`herald: ${error.message}\n\n${usage()}`);
    process.exitCode = EXIT_USAGE;
  } else if (error instanceof ConfigError) {
    process.stderr.write(`herald: configuration error: ${error.message}\n`);
    process.exitCode = EXIT_CONFIG;
  } else {
    throw error;
  }
}
