import leven from 'leven';
import type { Command } from './command-kit.ts';

// The CLI's help texts and its "did you mean" for a typo: pure functions of the
// command table, so main.ts only decides which to print.

const PREFIX = 'npm run herald --';

function listing(entries: readonly (readonly [string, Command])[]): string[] {
  const width = Math.max(...entries.map(([name]) => name.length));
  return entries.map(([name, command]) => `  ${name.padEnd(width)}  ${command.summary}`);
}

/** `herald --help`: every command with its one line. */
export function usage(commands: ReadonlyMap<string, Command>): string {
  return [
    `usage: ${PREFIX} COMMAND [ARGUMENTS] [--flags]`,
    '',
    'commands:',
    ...listing([...commands]),
    '',
    'Every command takes --help for its flags, and prints one JSON document with --json.',
    '',
  ].join('\n');
}

/** The sub-commands of one group (`herald accounts --help`). */
export function groupHelp(group: string, purpose: string | undefined, commands: ReadonlyMap<string, Command>): string {
  const members = [...commands].filter(([name]) => name.split(' ')[0] === group);
  return [
    `${group}${purpose === undefined ? '' : `: ${purpose}`}`,
    '',
    'commands:',
    ...listing(members),
    '',
    `Run ${PREFIX} ${group} COMMAND --help for a command's flags.`,
    '',
  ].join('\n');
}

/** One command's usage line and what it does (`herald accounts create --help`). */
export function commandHelp(command: Command): string {
  return [`usage: ${PREFIX} ${command.usage}`, '', command.summary, '', 'Exit codes: 0 done, 1 refused, 2 usage, 78 configuration.', ''].join('\n');
}

/** The candidate nearest to `typed`, when it is near enough to be what was meant. */
export function closest(typed: string, candidates: Iterable<string>): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = leven(typed, name);
    if (best === undefined || distance < best.distance) best = { name, distance };
  }
  // A third of the word may be wrong: "acounts" finds "accounts", "foo" finds nothing.
  return best !== undefined && best.distance <= Math.max(1, Math.floor(typed.length / 3)) ? best.name : undefined;
}

export const didYouMean = (suggestion: string | undefined): string => (suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`);
