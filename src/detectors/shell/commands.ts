import { parseShell, type ShellCommand } from './parse.js';

/**
 * Normalisation of parsed shell commands for `shell_risk`: wrappers (`sudo`, `env`, `nohup`, `xargs`…) and
 * variable assignments are peeled off, the program is reduced to its base name, and `bash -c '…'` / `eval …`
 * bodies are read as nested scripts (to a bounded depth).
 */
export interface Invocation {
  /** Base name of the program (`rm`, `mkfs.ext4`), lower-cased. */
  name: string;
  /** Arguments after the program. */
  args: string[];
  /** The parsed command it came from. */
  cmd: ShellCommand;
  /** Targets come from stdin (`xargs rm`): unknown. */
  viaXargs: boolean;
  /** `env`/`sudo env` with no program: prints the environment. */
  bareEnv: boolean;
  /** Index of the command in its pipeline, and the pipeline's invocations. */
  position: number;
  pipeline: Invocation[];
  /** Offsets in the top-level text (nested scripts map to their enclosing command). */
  start: number;
  end: number;
}

/** Options of wrappers that take a value (`sudo -u root`, `nice -n 10`, `timeout -s KILL 5`). */
const WRAPPER_VALUE_OPTS: Record<string, Set<string>> = {
  sudo: new Set(['-u', '-g', '-U', '-C', '-p', '-r', '-t', '-D', '-h']),
  doas: new Set(['-u', '-C']),
  env: new Set(['-u', '-C', '-S', '--unset', '--chdir']),
  nice: new Set(['-n']),
  ionice: new Set(['-c', '-n', '-p']),
  timeout: new Set(['-s', '-k', '--signal', '--kill-after']),
  xargs: new Set(['-I', '-L', '-n', '-P', '-d', '-E', '-s', '-a']),
  stdbuf: new Set(['-i', '-o', '-e']),
  watch: new Set(['-n', '-d']),
  su: new Set(['-s', '-g']),
};
const WRAPPERS = new Set(['sudo', 'doas', 'env', 'nohup', 'time', 'nice', 'ionice', 'exec', 'command', 'builtin', 'stdbuf', 'timeout', 'xargs', 'watch', 'caffeinate', 'chroot']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'ash', 'fish', 'mksh', 'csh', 'tcsh', 'busybox']);

const base = (w: string): string => (w.split('/').pop() ?? w).toLowerCase();
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Peels wrappers off one command; `undefined` when nothing but assignments or wrappers remain. */
function peel(cmd: ShellCommand): Omit<Invocation, 'position' | 'pipeline' | 'start' | 'end'> | undefined {
  const w = cmd.words.filter((x) => x !== '{' && x !== '}' && x !== '!');
  let k = 0;
  let viaXargs = false;
  let sawEnv = false;
  while (k < w.length) {
    const word = w[k]!;
    if (ASSIGNMENT.test(word)) {
      k++;
      continue;
    }
    const name = base(word);
    if (!WRAPPERS.has(name)) break;
    if (name === 'xargs') viaXargs = true;
    if (name === 'env') sawEnv = true;
    if (name === 'chroot') k++; // the new root
    k++;
    const valued = WRAPPER_VALUE_OPTS[name] ?? new Set<string>();
    while (k < w.length && (w[k]!.startsWith('-') || (ASSIGNMENT.test(w[k]!) && name === 'env'))) {
      if (w[k] === '--') {
        k++;
        break;
      }
      if (valued.has(w[k]!)) k++;
      k++;
    }
    if (name === 'timeout' && k < w.length && /^\d/.test(w[k]!)) k++; // the duration
    if (name === 'nice' && k < w.length && /^-?\d+$/.test(w[k]!)) k++;
  }
  if (k >= w.length) {
    return sawEnv ? { name: 'env', args: [], cmd, viaXargs, bareEnv: true } : undefined;
  }
  return { name: base(w[k]!), args: w.slice(k + 1), cmd, viaXargs, bareEnv: false };
}

/** A shell's `-c` among its short flags (`-c`, `-lc`, `-xec`): the first `c` is the one. */
export const SHELL_COMMAND_FLAG = /^-[abd-z]*c[a-z]*$/;

/** The script text a command runs itself: `bash -c '…'`, `sh -lc "…"`, `su -c '…'`, `eval …`. */
function nestedScript(inv: Omit<Invocation, 'position' | 'pipeline' | 'start' | 'end'>): string | undefined {
  if (inv.name === 'eval') return inv.args.join(' ');
  if (SHELLS.has(inv.name) || inv.name === 'su') {
    const c = inv.args.findIndex((a) => SHELL_COMMAND_FLAG.test(a));
    if (c >= 0 && c + 1 < inv.args.length) return inv.args[c + 1];
  }
  return undefined;
}

/** Every invocation in `text`, nested scripts and substitutions included (to `maxDepth` levels). */
export function invocations(text: string, maxDepth = 2, depth = 0, span?: [number, number]): Invocation[] {
  const out: Invocation[] = [];
  // `$IFS` (and `${IFS}`, `${IFS%?}`…) expands to white space: a shell splits words there (`rm${IFS}-rf${IFS}/x`).
  // Same length, so offsets stay those of the text.
  const split = text.includes('IFS') ? text.replace(/\$\{IFS[^}]*\}|\$IFS(?![A-Za-z0-9_])/g, (m) => ' '.repeat(m.length)) : text;
  for (const pipe of parseShell(split)) {
    const line: Invocation[] = [];
    for (const cmd of pipe) {
      const peeled = peel(cmd);
      const [start, end] = span ?? [cmd.start, cmd.end];
      if (peeled) {
        const { name, args, viaXargs, bareEnv } = peeled;
        line.push({ name, args, cmd, viaXargs, bareEnv, position: line.length, pipeline: line, start, end });
      }
      if (depth < maxDepth) {
        const inner = peeled ? nestedScript(peeled) : undefined;
        if (inner !== undefined) for (const x of invocations(inner, maxDepth, depth + 1, [start, end])) out.push(x);
        for (const sub of cmd.subs) for (const x of invocations(sub, maxDepth, depth + 1, [start, end])) out.push(x);
      }
    }
    for (const inv of line) out.push(inv);
  }
  return out;
}

export { SHELLS };
