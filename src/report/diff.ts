import type { FileChange } from '../model';
import { paint, type Paint } from './ansi';
import { sortChanges } from './sort';

/**
 * Prints the unified diffs of `changes` (made with the `diff` package) in file order.
 * With colour: file headers bold, hunk headers cyan, additions green, removals red.
 * Hunk bodies are tracked by their line counts, so a removed line that itself starts with `--`
 * is still red, not mistaken for a `---` header.
 */
export function renderDiff(changes: readonly FileChange[], color: boolean): string {
  const p = paint(color);
  const out: string[] = [];
  for (const change of sortChanges(changes)) {
    if (change.diff === '') continue;
    const lines = change.diff.replace(/\r?\n$/, '').split(/\r?\n/);
    out.push(...(color ? colourPatch(lines, p) : lines));
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

function colourPatch(lines: string[], p: Paint): string[] {
  let oldLeft = 0;
  let newLeft = 0;
  return lines.map((line) => {
    if (oldLeft > 0 || newLeft > 0) {
      const c = line[0];
      if (c === '+') {
        newLeft--;
        return p.green(line);
      }
      if (c === '-') {
        oldLeft--;
        return p.red(line);
      }
      if (c === '\\') return p.dim(line); // "\ No newline at end of file"
      oldLeft--;
      newLeft--;
      return line;
    }
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldLeft = hunk[1] === undefined ? 1 : Number(hunk[1]);
      newLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      return p.cyan(line);
    }
    if (line.startsWith('\\')) return p.dim(line);
    if (line.startsWith('+')) return line.startsWith('+++') ? p.bold(line) : p.green(line);
    if (line.startsWith('-')) return line.startsWith('---') ? p.bold(line) : p.red(line);
    return p.bold(line); // Index:, ====, diff --git … and other header lines
  });
}
