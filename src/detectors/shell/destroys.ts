import type { Invocation } from './commands.js';

/**
 * The model of file-destroying operations (`shell_risk` `destructive_delete`): what an invocation removes,
 * truncates or overwrites, whatever the program — not a list of programs that delete. Each program that writes over
 * a file names its targets here (one entry), and output redirections (`>`, `>|`, `&>`, `2>`) truncate theirs; an
 * interpreter one-liner (`python -c`, `node -e`, `perl -e`, `ruby -e`, `php -r`) that calls a remove, truncate or
 * write-over function names the paths it spells. `rm`, `find -delete` and `shred` keep their rules in rules.ts.
 */
export interface Destroyed {
  /** What it does to the targets ("truncates", "overwrites", "moves away"). */
  how: string;
  /** The target paths, as written. */
  targets: string[];
  /** A target the model cannot name (a path computed in code): counts as outside the sandbox. */
  unknownTarget?: boolean;
  /** It only destroys (unlink, truncate): like `rm -f`, a relative target counts unless under a relative sandbox entry. */
  removal?: boolean;
}

const flagsOf = (args: string[]): string[] => args.filter((a) => a.startsWith('-') && a.length > 1);
/** Operands: words that are not options, skipping the value of each option in `valued`. */
function operandsOf(args: string[], valued: ReadonlySet<string> = new Set()): string[] {
  const out: string[] = [];
  for (let k = 0; k < args.length; k++) {
    const a = args[k]!;
    if (a === '--') return [...out, ...args.slice(k + 1)];
    if (a.startsWith('-') && a.length > 1) {
      if (valued.has(a)) k++;
      continue;
    }
    out.push(a);
  }
  return out;
}
const hasFlag = (args: string[], short: string, long: string[] = []): boolean =>
  flagsOf(args).some((f) => (!f.startsWith('--') && f.slice(1).includes(short)) || long.some((l) => f === l || f.startsWith(`${l}=`)));

/** The `-t DIR` / `--target-directory=DIR` of cp, mv, ln, install. */
function targetDirectory(args: string[]): string | undefined {
  for (let k = 0; k < args.length; k++) {
    if (args[k] === '-t' || args[k] === '--target-directory') return args[k + 1];
    if (args[k]!.startsWith('--target-directory=')) return args[k]!.slice('--target-directory='.length);
  }
  return undefined;
}

/** Programs that write over files, each with what it does to which operands. */
const PROGRAMS: Record<string, (args: string[]) => Destroyed | undefined> = {
  unlink: (args) => ({ how: 'removes', targets: operandsOf(args), removal: true }),
  truncate: (args) => ({ how: 'truncates', targets: operandsOf(args, new Set(['-s', '--size', '-r', '--reference'])), removal: true }),
  tee: (args) => (hasFlag(args, 'a', ['--append']) ? undefined : { how: 'overwrites', targets: operandsOf(args) }),
  dd: (args) => {
    const of = args.filter((a) => a.startsWith('of=')).map((a) => a.slice(3));
    return of.length > 0 ? { how: 'overwrites', targets: of } : undefined;
  },
  cp: (args) => copyLike(args, 'overwrites', new Set(['-S', '--suffix'])),
  install: (args) => copyLike(args, 'overwrites', new Set(['-m', '-o', '-g', '-S', '--mode', '--owner', '--group'])),
  ln: (args) => (hasFlag(args, 'f', ['--force']) ? copyLike(args, 'replaces', new Set(['-S', '--suffix'])) : undefined),
  mv: (args) => {
    // The sources are moved away and the destination written over: every operand is destroyed where it was.
    const ops = operandsOf(args, new Set(['-S', '--suffix', '-t', '--target-directory']));
    const dir = targetDirectory(args);
    return { how: 'moves away or overwrites', targets: dir !== undefined ? [...ops, dir] : ops };
  },
  sed: (args) => inPlace(args, hasFlag(args, 'i', ['--in-place']), new Set(['-e', '-f', '--expression', '--file', '-l', '--line-length'])),
  perl: (args) => inPlace(args, flagsOf(args).some((f) => /^-[a-hj-zA-Z]*i/.test(f)), new Set(['-e', '-E', '-M', '-I'])),
  ruby: (args) => inPlace(args, flagsOf(args).some((f) => /^-[a-hj-zA-Z]*i/.test(f)), new Set(['-e', '-r', '-I'])),
};
for (const p of ['gcp', 'gmv']) PROGRAMS[p] = PROGRAMS[p.slice(1)]!;

/** cp / install / ln: the destination (the last operand, or `-t DIR`) is written over. */
function copyLike(args: string[], how: string, valued: ReadonlySet<string>): Destroyed | undefined {
  const dir = targetDirectory(args);
  if (dir !== undefined) return { how, targets: [dir] };
  const ops = operandsOf(args, new Set([...valued, '-t', '--target-directory']));
  return ops.length >= 2 ? { how, targets: [ops.at(-1)!] } : undefined;
}

/** `sed -i`, `perl -pi -e`: the file operands after the script are rewritten in place. */
function inPlace(args: string[], on: boolean, valued: ReadonlySet<string>): Destroyed | undefined {
  if (!on) return undefined;
  const scripted = args.some((a) => valued.has(a) && (a === '-e' || a === '-E' || a === '--expression' || a === '-f' || a === '--file'));
  const ops = operandsOf(args, valued);
  // Without -e/-f the first operand is the script.
  const files = scripted ? ops : ops.slice(1);
  return files.length > 0 ? { how: 'rewrites in place', targets: files } : undefined;
}

/** Interpreters and the option that takes a one-line program. */
const ONE_LINERS: Record<string, RegExp> = {
  python: /^-[a-zA-Z]*c$/,
  python2: /^-[a-zA-Z]*c$/,
  python3: /^-[a-zA-Z]*c$/,
  node: /^(?:-e|--eval|-p|--print)$/,
  nodejs: /^(?:-e|--eval|-p|--print)$/,
  deno: /^eval$/,
  bun: /^(?:-e|--eval)$/,
  perl: /^-[a-zA-Z]*[eE]$/,
  ruby: /^-[a-zA-Z]*e$/,
  php: /^-r$/,
};
/** Calls that remove, truncate or write over a file, in the languages above. */
const DESTROY_CALL =
  /\b(?:os\.(?:remove|unlink|rmdir|removedirs|truncate)|shutil\.(?:rmtree|move)|open\s*\([^)]*,\s*['"][wa+]*w|unlink\s*\(?|truncate\s*\(|File\.(?:delete|write|truncate)|FileUtils\.(?:rm|remove)|file_put_contents|rename\s*\()|\.(?:unlink|rmdir|write_text|write_bytes|rm|truncate|writeFile|copyFile|rename|createWriteStream)(?:Sync)?\s*\(/;
/** Quoted path literals in code. */
const PATH_LITERAL = /(['"`])((?:\/|~\/|\.\.\/)[^'"`\s]*)\1/g;

/** A program name's version (`python3.11`, `node20`), read from its first digit only. */
export const VERSION_SUFFIX = /(?<!\d|\d\.)\d+(?:\.\d+)*$/;

/** The program text of an interpreter one-liner, if `inv` is one. */
function oneLiner(inv: Invocation): string | undefined {
  // eslint-disable-next-line regexp/no-super-linear-move -- v is a VERSION_SUFFIX match (digits and single dots): its first dot starts a match that runs to the end
  const name = inv.name.replace(VERSION_SUFFIX, (v) => (inv.name.startsWith('python') ? v.replace(/\..*$/, '') : ''));
  const opt = ONE_LINERS[name] ?? ONE_LINERS[inv.name];
  if (opt === undefined) return undefined;
  const k = inv.args.findIndex((a) => opt.test(a));
  return k >= 0 ? inv.args[k + 1] : undefined;
}

/** Redirections that truncate their target (`>`, `>|`, `&>`, `2>`; not `>>`, not a descriptor duplication). */
const TRUNCATING = /^(?:\d*>|>\||&>|\d*>\|)$/;
/** Devices that are no file: writing there destroys nothing. */
const HARMLESS_DEVICE = /^\/dev\/(?:null|zero|stdout|stderr|stdin|tty|fd\/\d+|pts\/\d+)$/;

/** What `inv` removes, truncates or overwrites (redirections included), or undefined. */
export function destroys(inv: Invocation): Destroyed[] {
  const out: Destroyed[] = [];
  const model = PROGRAMS[inv.name];
  const d = model?.(inv.args);
  if (d !== undefined && d.targets.length > 0) out.push(d);
  const code = oneLiner(inv);
  if (code !== undefined && DESTROY_CALL.test(code)) {
    const paths = [...code.matchAll(PATH_LITERAL)].map((m) => m[2]!);
    out.push(paths.length > 0 ? { how: 'removes or overwrites (in code)', targets: paths } : { how: 'removes or overwrites a path it computes', targets: [], unknownTarget: true });
  }
  const truncated = inv.cmd.redirects.filter((r) => TRUNCATING.test(r.op) && !/^&?\d*$/.test(r.target) && !HARMLESS_DEVICE.test(r.target)).map((r) => r.target);
  if (truncated.length > 0) out.push({ how: 'truncates (redirection)', targets: truncated });
  return out;
}
