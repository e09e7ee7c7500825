import type { FieldText } from '../../core/fields.js';

/**
 * Command vectors in tool-call arguments, joined into one shell line so they are read as one command, not as
 * separate words (`{command: "rm", args: ["-rf", "/x"]}` is `rm -rf /x`):
 * - an object with a string `command`/`cmd`/`program`/`executable`/`binary`/`bin`/`exe`/`file` and an array
 *   `args`/`argv`/`arguments`/`params`/`parameters`/`options`/`flags` of strings (numbers too);
 * - an array of at least two strings under one of those command keys (`{cmd: ["rm", "-rf", "/x"]}`), or under
 *   `argv`/`args` with no command beside it;
 * at any depth. Each word is single-quoted when it holds anything but safe characters, so the joined line parses
 * back to exactly these words (a word is never re-split or expanded).
 */
const COMMAND_KEY = /^(?:command|cmd|program|executable|binary|bin|exe|file|tool|shell)$/i;
const ARGS_KEY = /^(?:args|argv|arguments|params|parameters|options|flags|argument_list)$/i;
const MAX_DEPTH = 32;

/** Shell-quotes one word (`'…'`, with `'` as `'\''`) unless it is made of safe characters only. */
export function shellQuote(word: string): string {
  if (word.length > 0 && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

function words(v: unknown): string[] | undefined {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  if (!v.every((x) => typeof x === 'string' || typeof x === 'number')) return undefined;
  return v.map(String);
}

export function commandVectors(args: unknown): FieldText[] {
  const out: FieldText[] = [];
  walk(args, 'arguments', 0, out);
  return out;
}

function walk(value: unknown, field: string, depth: number, out: FieldText[]): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    value.forEach((v, k) => walk(v, `${field}.${k}`, depth + 1, out));
    return;
  }
  const o = value as Record<string, unknown>;
  const entries = Object.entries(o);
  const cmd = entries.find(([k, v]) => COMMAND_KEY.test(k) && (typeof v === 'string' || words(v) !== undefined));
  const argv = entries.find(([k, v]) => ARGS_KEY.test(k) && words(v) !== undefined);
  if (cmd) {
    const head = typeof cmd[1] === 'string' ? [cmd[1]] : (words(cmd[1]) as string[]);
    // A string command is already a command line (it may hold its own flags); array words are quoted.
    const line = [typeof cmd[1] === 'string' ? cmd[1] : head.map(shellQuote).join(' '), ...(argv ? (words(argv[1]) as string[]).map(shellQuote) : [])].join(' ');
    if (argv || typeof cmd[1] !== 'string') out.push({ field: `${field}.${cmd[0]}${argv ? `+${argv[0]}` : ''}`, text: line });
  } else if (argv && (words(argv[1]) as string[]).length >= 2) {
    out.push({ field: `${field}.${argv[0]}`, text: (words(argv[1]) as string[]).map(shellQuote).join(' ') });
  }
  for (const [k, v] of entries) walk(v, `${field}.${k}`, depth + 1, out);
}
