import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository's root, where the CLI and deploy/herald are run from. */
export const REPO = fileURLToPath(new URL('../../', import.meta.url));

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The test's environment without any HERALD_* variable, plus `env`: an operator's shell with only those settings. */
export function heraldEnv(env: Readonly<Record<string, string>>): NodeJS.ProcessEnv {
  return { ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('HERALD_'))), ...env };
}

/** Runs a command (in the repository, unless `cwd` says where) to its end, collecting its exit code and output. */
export function runToEnd(command: string, args: readonly string[], env: NodeJS.ProcessEnv, cwd = REPO): Promise<Run> {
  const child = spawn(command, args, { cwd, env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The operator CLI (`node src/cli/main.ts`) with only the given HERALD_* settings. */
export function heraldCli(env: Readonly<Record<string, string>>, ...args: string[]): Promise<Run> {
  return runToEnd(process.execPath, ['src/cli/main.ts', ...args], heraldEnv(env));
}

/**
 * The operator CLI's entry run for each command line in turn, in one Node process
 * (test/support/cli-runs.ts): for lines that only print, such as every command's --help.
 */
export async function heraldCliLines(env: Readonly<Record<string, string>>, lines: readonly (readonly string[])[]): Promise<Run[]> {
  const run = await runToEnd(process.execPath, ['test/support/cli-runs.ts', JSON.stringify(lines)], heraldEnv(env));
  if (run.code !== 0) throw new Error(`test/support/cli-runs.ts exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as Run[];
}
