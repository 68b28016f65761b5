// Projects copied outside this repository, so that Node finds only what their own install put there: for the tests
// that install a migrated project from its own package.json, the way a user's machine would.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const INSTALL_TIMEOUT_MS = 300_000;

export class IsolatedProjects {
  private readonly made: string[] = [];

  constructor(private readonly prefix: string) {}

  /** A copy of `from` in a fresh temporary folder. */
  copy(from: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `mcp-migrate-${this.prefix}-`));
    this.made.push(dir);
    fs.cpSync(from, dir, { recursive: true });
    return dir;
  }

  /** A copy of `from` with its dependencies installed by npm (from the cache where it can). */
  async installed(from: string): Promise<string> {
    const dir = this.copy(from);
    await run(dir, 'npm', ['install', '--prefer-offline', '--no-audit', '--no-fund'], INSTALL_TIMEOUT_MS);
    return dir;
  }

  removeAll(): void {
    for (const dir of this.made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs a command to completion; rejects with its output when it fails. */
export function run(cwd: string, command: string, args: string[], timeout: number): Promise<void> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { cwd, timeout }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command} ${args.join(' ')} failed:\n${stdout}${stderr}`)) : resolve(),
    ),
  );
}
