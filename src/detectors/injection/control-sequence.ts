import { mayHoldControls } from './fast-paths.js';
import type { Finding } from './finding.js';
import type { HoldsLiteral } from './gate-literals.js';

/** `control_sequence`: terminal control sequences and raw control characters in text meant for a model or a terminal. */

/** ANSI escape sequences (CSI, OSC) and raw ESC. */
const ANSI = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]{0,200}(?:\u0007|\u001B\\)|[@-Z\\-_])/;
/** C0/C1 controls other than tab, newline, carriage return, form feed and ESC (counted separately). */
const OTHER_CONTROL = /[\u0000-\u0008\u000B\u000E-\u001A\u001C-\u001F\u007F-\u009F]/g;

/**
 * The `control_sequence` findings of a text (each needs a character `mayHoldControls` looks for; `holds`: the scan's
 * answers for the text, when one was made).
 */
export function controlSequence(text: string, holds?: HoldsLiteral): Finding[] {
  const out: Finding[] = [];
  if (!mayHoldControls(text, holds)) return out;
  if (ANSI.test(text)) out.push({ signal: 'control_sequence', detail: 'ANSI escape sequence', weight: 0.6 });
  const ctl = text.match(OTHER_CONTROL)?.length ?? 0;
  if (ctl >= 3) out.push({ signal: 'control_sequence', detail: `control characters x${ctl}`, weight: 0.3 });
  return out;
}
