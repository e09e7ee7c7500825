/**
 * A small, forgiving POSIX-shell reader for the `shell_risk` detector. It does not execute or expand anything;
 * it splits text into pipelines (`;`, `&&`, `||`, `&`, newlines, `(`, `)`) of simple commands (`|`, `|&`),
 * strips quotes and backslashes the way the shell would, records redirections, and keeps the inner text of
 * command and process substitutions (`$(…)`, `` `…` ``, `<(…)`, `>(…)`) for the caller to read in turn.
 * Unbalanced quotes or parentheses simply run to the end of the text. Linear in the input length.
 */
export interface ShellCommand {
  /** Words after quote removal; substitutions stay in them verbatim (`$(curl x)`). */
  words: string[];
  /** Redirections: operator (`>`, `>>`, `<`, `&>`, `2>`…) and target word. */
  redirects: Array<{ op: string; target: string }>;
  /** Inner scripts of the substitutions that appear in this command's words. */
  subs: string[];
  /** Offsets of the command in the text: [start, end). */
  start: number;
  end: number;
}

/** Commands joined by `|`. */
export type Pipeline = ShellCommand[];

/** Reads to the `close` matching an already-consumed opener, honouring quotes and nesting; returns the end index. */
function readBalanced(text: string, from: number, open: string, close: string): number {
  let depth = 1;
  let k = from;
  while (k < text.length) {
    const c = text[k]!;
    if (c === '\\') k += 2;
    else if (c === "'") {
      const q = text.indexOf("'", k + 1);
      k = q < 0 ? text.length : q + 1;
    } else if (c === '"') {
      let q = k + 1;
      while (q < text.length && text[q] !== '"') q += text[q] === '\\' ? 2 : 1;
      k = q + 1;
    } else {
      if (c === open) depth++;
      else if (c === close && --depth === 0) return k;
      k++;
    }
  }
  return text.length;
}

/** Parses shell text into pipelines of commands. */
export function parseShell(text: string): Pipeline[] {
  const pipelines: Pipeline[] = [];
  let pipeline: Pipeline = [];
  let cmd: ShellCommand = { words: [], redirects: [], subs: [], start: -1, end: -1 };
  let word: string | undefined;
  let wordStart = -1;
  let pendingRedirect: string | undefined;

  const endWord = (at: number): void => {
    if (word === undefined) return;
    if (pendingRedirect !== undefined) {
      cmd.redirects.push({ op: pendingRedirect, target: word });
      pendingRedirect = undefined;
    } else cmd.words.push(word);
    if (cmd.start < 0) cmd.start = wordStart;
    cmd.end = at;
    word = undefined;
  };
  const append = (s: string, at: number): void => {
    if (word === undefined) {
      word = '';
      wordStart = at;
    }
    word += s;
  };
  const endCommand = (at: number): void => {
    endWord(at);
    if (cmd.words.length > 0 || cmd.redirects.length > 0 || cmd.subs.length > 0) pipeline.push(cmd);
    cmd = { words: [], redirects: [], subs: [], start: -1, end: -1 };
  };
  const endPipeline = (at: number): void => {
    endCommand(at);
    if (pipeline.length > 0) pipelines.push(pipeline);
    pipeline = [];
  };
  const substitution = (k: number, openLen: number, prefix: string): number => {
    const close = readBalanced(text, k + openLen, '(', ')');
    cmd.subs.push(text.slice(k + openLen, close));
    append(`${prefix}${text.slice(k + openLen, close)})`, k);
    return close + 1;
  };

  let k = 0;
  while (k < text.length) {
    const c = text[k]!;
    const next = text[k + 1];
    if (c === ' ' || c === '\t' || c === '\r') {
      endWord(k);
      k++;
    } else if (c === '\n' || c === ';' || c === '(' || c === ')') {
      endPipeline(k);
      k++;
    } else if (c === '&' && next === '&') {
      endPipeline(k);
      k += 2;
    } else if (c === '|' && next === '|') {
      endPipeline(k);
      k += 2;
    } else if (c === '|') {
      endCommand(k);
      k += next === '&' ? 2 : 1;
    } else if (c === '&' && next !== '>') {
      endPipeline(k);
      k++;
    } else if (c === '#' && word === undefined) {
      const nl = text.indexOf('\n', k);
      k = nl < 0 ? text.length : nl;
    } else if (c === '\\') {
      if (next !== undefined && next !== '\n') append(next, k);
      k += 2;
    } else if (c === "'") {
      const q = text.indexOf("'", k + 1);
      const end = q < 0 ? text.length : q;
      append(text.slice(k + 1, end), k);
      k = end + 1;
    } else if (c === '"') {
      append('', k);
      let q = k + 1;
      while (q < text.length && text[q] !== '"') {
        if (text[q] === '\\' && q + 1 < text.length) {
          append(text[q + 1]!, q);
          q += 2;
        } else if (text[q] === '$' && text[q + 1] === '(') q = substitution(q, 2, '$(');
        else if (text[q] === '`') {
          const e = text.indexOf('`', q + 1);
          const end = e < 0 ? text.length : e;
          cmd.subs.push(text.slice(q + 1, end));
          append(text.slice(q, end + 1), q);
          q = end + 1;
        } else {
          append(text[q]!, q);
          q++;
        }
      }
      k = q + 1;
    } else if (c === '$' && next === '(') {
      k = substitution(k, 2, '$(');
    } else if ((c === '<' || c === '>') && next === '(') {
      k = substitution(k, 2, `${c}(`);
    } else if (c === '`') {
      const e = text.indexOf('`', k + 1);
      const end = e < 0 ? text.length : e;
      cmd.subs.push(text.slice(k + 1, end));
      append(text.slice(k, end + 1), k);
      k = end + 1;
    } else if (c === '>' || c === '<' || (c === '&' && next === '>')) {
      // A word made only of digits right before the operator is a file descriptor (`2>`), not an argument.
      let op = '';
      if (word !== undefined && /^\d+$/.test(word)) {
        op = word;
        word = undefined;
      } else endWord(k);
      let q = k;
      while (q < text.length && /[<>&|]/.test(text[q]!) && q - k < 3) op += text[q++];
      // `2>&1`: a descriptor duplication, not a file.
      const dup = /^(\d+)/.exec(text.slice(q));
      if (op.endsWith('&') && dup) {
        q += dup[1]!.length;
      } else pendingRedirect = op;
      if (cmd.start < 0) cmd.start = k;
      k = q;
    } else {
      append(c, k);
      k++;
    }
  }
  endPipeline(text.length);
  return pipelines;
}
