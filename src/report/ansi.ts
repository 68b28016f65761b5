// Plain ANSI SGR codes; no dependency. Every helper is the identity when colour is off.

export interface Paint {
  bold(s: string): string;
  dim(s: string): string;
  underline(s: string): string;
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  blue(s: string): string;
  cyan(s: string): string;
}

function sgr(open: number, close: number): (s: string) => string {
  return (s) => (s === '' ? s : `\u001b[${open}m${s}\u001b[${close}m`);
}

const identity = (s: string): string => s;

const ON: Paint = {
  bold: sgr(1, 22),
  dim: sgr(2, 22),
  underline: sgr(4, 24),
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
  blue: sgr(34, 39),
  cyan: sgr(36, 39),
};

const OFF: Paint = {
  bold: identity,
  dim: identity,
  underline: identity,
  red: identity,
  green: identity,
  yellow: identity,
  blue: identity,
  cyan: identity,
};

export function paint(color: boolean): Paint {
  return color ? ON : OFF;
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
