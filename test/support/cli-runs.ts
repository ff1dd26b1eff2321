// Runs the operator CLI's real entry (src/cli/main.ts) once per command line, all in this one
// process: main.ts is evaluated afresh for each line (its URL carries the line's number), with
// its own argv, its writes to stdout and stderr collected, and its exit code read from
// process.exitCode. One Node start-up instead of one per line: loading the CLI's module graph
// costs 1.5-2 s of CPU a process, which is most of what a --help test spends.
//   node test/support/cli-runs.ts '[["accounts","--help"],["keys","list","--help"]]'
// prints a JSON array of { code, stdout, stderr }, one per line, in order.
import { pathToFileURL } from 'node:url';
import { REPO, type Run } from './child-process.ts';

const lines = JSON.parse(process.argv[2] ?? '[]') as string[][];
const main = pathToFileURL(`${REPO}src/cli/main.ts`);
const write = { stdout: process.stdout.write.bind(process.stdout), stderr: process.stderr.write.bind(process.stderr) };
const runs: Run[] = [];

for (const [index, args] of lines.entries()) {
  const out = { stdout: '', stderr: '' };
  process.argv = [process.execPath, main.pathname, ...args];
  process.exitCode = undefined;
  process.stdout.write = ((chunk: string | Uint8Array) => ((out.stdout += String(chunk)), true)) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => ((out.stderr += String(chunk)), true)) as typeof process.stderr.write;
  let code: number;
  try {
    await import(`${main.href}?line=${index}`);
    code = Number(process.exitCode ?? 0);
  } catch (error) {
    // What Node does with an uncaught error at the top of a module: print it, exit 1.
    out.stderr += `${error instanceof Error ? error.stack : String(error)}\n`;
    code = 1;
  } finally {
    process.stdout.write = write.stdout;
    process.stderr.write = write.stderr;
  }
  runs.push({ code, ...out });
}
process.exitCode = 0;
process.stdout.write(`${JSON.stringify(runs)}\n`);
