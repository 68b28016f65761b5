// Shell steps (install, build, apply…) run in their own process group under a timeout; the whole group is killed
// when the step times out, when it ends, and when the runner is interrupted.

import { spawn, type ChildProcess } from 'node:child_process';
import { stopProcess } from '../test/helpers/server-process';
import type { StepResult } from './report';

const OUTPUT_LIMIT = 256 * 1024;
const LOG_HEAD = 1_500;
const LOG_TAIL = 4_000;

/** Everything started and not yet stopped: a step's process group, or a server's `stop`. */
const live = new Set<() => Promise<void>>();

export function track(stop: () => Promise<void>): () => void {
  live.add(stop);
  return () => live.delete(stop);
}

/** Stops every process group still running (on SIGINT/SIGTERM). */
export async function stopEverything(): Promise<void> {
  await Promise.all([...live].map((stop) => stop().catch(() => undefined)));
  live.clear();
}

/** The head and tail of a long log. */
export function truncateLog(text: string): string {
  if (text.length <= LOG_HEAD + LOG_TAIL) return text;
  return `${text.slice(0, LOG_HEAD)}\n[… ${text.length - LOG_HEAD - LOG_TAIL} characters left out …]\n${text.slice(-LOG_TAIL)}`;
}

export interface StepOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

export interface StepOutput extends StepResult {
  stdout: string;
}

/** Runs a command in bash, in its own process group; resolves with its status, exit code and (truncated) output. */
export function runStep(command: string, options: StepOptions): Promise<StepOutput> {
  const started = Date.now();
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn('bash', ['-c', command], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    } catch (error) {
      resolve({ status: 'failed', command, detail: (error as Error).message, stdout: '' });
      return;
    }
    let stdout = '';
    let combined = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      stdout = (stdout + chunk).slice(-OUTPUT_LIMIT);
      combined = (combined + chunk).slice(-OUTPUT_LIMIT);
    });
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      combined = (combined + chunk).slice(-OUTPUT_LIMIT);
    });
    const stop = () => stopProcess(child, true);
    const untrack = track(stop);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      void stop();
    }, options.timeoutMs);
    let spawnError: Error | undefined;
    child.once('error', (error) => {
      spawnError = error;
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      // Anything the command left running in its group (a watcher, a stray server) goes with it.
      void stop().finally(() => {
        untrack();
        const durationMs = Date.now() - started;
        const log = truncateLog(combined);
        if (timedOut) {
          resolve({
            status: 'timeout',
            command,
            durationMs,
            exitCode: code,
            detail: `timed out after ${options.timeoutMs / 1000} s`,
            log,
            stdout,
          });
        } else if (code === 0) {
          resolve({ status: 'ok', command, durationMs, exitCode: 0, log, stdout });
        } else {
          const why = spawnError?.message ?? (signal ? `killed by ${signal}` : `exit ${String(code)}`);
          resolve({ status: 'failed', command, durationMs, exitCode: code, detail: why, log, stdout });
        }
      });
    });
  });
}

/** A step result without its stdout (kept in the JSON). */
export function withoutStdout({ stdout: _stdout, ...result }: StepOutput): StepResult {
  return result;
}
