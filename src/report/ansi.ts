// Terminal colour through picocolors: `paint(true)` always colours, `paint(false)` never does; whether to colour by
// default (NO_COLOR, FORCE_COLOR, a TTY, CI) is picocolors' `isColorSupported`, read by the CLI (see `defaultColor`).
import * as picocolors from 'picocolors';

export type Paint = Pick<
  ReturnType<typeof picocolors.createColors>,
  'bold' | 'dim' | 'underline' | 'red' | 'green' | 'yellow' | 'blue' | 'cyan'
>;

const ON: Paint = picocolors.createColors(true);
const OFF: Paint = picocolors.createColors(false);

export function paint(color: boolean): Paint {
  return color ? ON : OFF;
}

/** Colour unless told otherwise: NO_COLOR / FORCE_COLOR, then whether stdout is a terminal (picocolors' rules). */
export function defaultColor(): boolean {
  return picocolors.isColorSupported;
}

/**
 * Makes text from scanned source safe to print on a terminal: control characters other than
 * newline and tab (ESC above all) are shown as `\xNN` instead of being sent to the terminal.
 */
export function terminalSafe(s: string): string {
  return s
    .replace(/\r\n/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
