// Progress of a long operation (a verify of many domains), on the terminal only: one
// line rewritten in place on stderr, so stdout stays the command's output and a script
// or a log (not a TTY) sees nothing of it.

export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

export interface Progress {
  step(done: number, total: number, label: string): void;
  end(): void;
}

const CLEAR_LINE = '\r\u001b[K';

export function terminalProgress(stream: ProgressStream): Progress {
  if (stream.isTTY !== true) return { step() {}, end() {} };
  let shown = false;
  return {
    step(done, total, label) {
      shown = true;
      stream.write(`${CLEAR_LINE}${done}/${total} ${label}`);
    },
    end() {
      if (shown) stream.write(CLEAR_LINE);
      shown = false;
    },
  };
}
