// Progress on long runs: one status line on stderr ("analysed 40/140 files · 12 transforms applied · src/x.ts"),
// redrawn at most every 100 ms and erased when the run ends. Only on a terminal and never in CI: piped or logged
// output gets nothing.
import { onProgress, type ProgressEvent } from '../engine/progress';
import { terminalSafe } from '../report/ansi';

const REDRAW_MS = 100;

interface Terminal {
  isTTY?: boolean;
  columns?: number;
  write(text: string): boolean;
}

export function progressWanted(stream: Terminal, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && !env.CI;
}

/** Runs `work` with a progress line on `stream` when {@link progressWanted}. */
export function showProgress<T>(work: () => T, stream: Terminal = process.stderr, env: NodeJS.ProcessEnv = process.env): T {
  if (!progressWanted(stream, env)) return work();
  let analysed = '';
  let transforms = 0;
  let shown = false;
  let last = 0;
  const stop = onProgress((event: ProgressEvent) => {
    if (event.kind === 'analysed') analysed = `analysed ${event.done}/${event.total} files`;
    else transforms += 1;
    const now = Date.now();
    if (now - last < REDRAW_MS) return;
    last = now;
    const parts = [analysed, transforms > 0 ? `${transforms} transforms applied` : '', terminalSafe(event.file)].filter(Boolean);
    const line = parts.join(' · ').slice(0, Math.max(20, (stream.columns ?? 80) - 1));
    stream.write(`\r\u001b[2K${line}`);
    shown = true;
  });
  const end = () => {
    stop();
    if (shown) stream.write('\r\u001b[2K');
  };
  let result: T;
  try {
    result = work();
  } catch (error) {
    end();
    throw error;
  }
  // An async run (check with its worker pool) ends when its promise settles.
  if (result instanceof Promise) return result.finally(end) as T;
  end();
  return result;
}
