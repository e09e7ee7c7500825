import { SHELLS, type Invocation } from './commands.js';
import { isUnder, lexicalPath, type LexicalPath } from '../posix-path.js';
import { destroys } from './destroys.js';

/**
 * The checks of `shell_risk`, one function per category. Each gets one invocation and the compiled sandbox and
 * returns a reason (`rm -r on /etc`) or undefined.
 */
export const SHELL_CATEGORIES = [
  'destructive_delete',
  'permission_change',
  'remote_exec',
  'env_dump',
  'disk_destroy',
  'reverse_shell',
  'git_destructive',
  'credential_read',
] as const;
export type ShellCategory = (typeof SHELL_CATEGORIES)[number];
/** Categories checked when the book does not list any. */
export const DEFAULT_SHELL_CATEGORIES: ShellCategory[] = ['destructive_delete', 'permission_change', 'remote_exec', 'env_dump', 'disk_destroy'];

const SYSTEM_DIRS = ['/etc', '/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/boot', '/var', '/opt', '/root', '/dev', '/proc', '/sys', '/System', '/Library', '/Applications', '/private', '/srv', '/snap'];
const SYSTEM = SYSTEM_DIRS.map((d) => lexicalPath(d)!);
/** Deleting exactly one of these (or everything in it) is always flagged, sandbox or not. */
const CRITICAL = [...SYSTEM_DIRS, '/', '/home', '/Users', '/mnt', '/media'].map((d) => lexicalPath(d)!);

const same = (a: LexicalPath, b: LexicalPath): boolean =>
  a.root === b.root && a.parts.length === b.parts.length && a.parts.every((s, k) => b.parts[k] === s);

/** Where a target points, lexically; globs are cut at their directory (`/etc/*` → `/etc`, glob-in-dir). */
interface Target {
  text: string;
  path: LexicalPath | undefined;
  /** The target names everything in `path` (a glob in it). */
  glob: boolean;
}

function target(text: string): Target {
  const g = text.search(/[*?[]/);
  if (g < 0) return { text, path: lexicalPath(text), glob: false };
  const dir = text.slice(0, text.lastIndexOf('/', g) + 1);
  return { text, path: dir === '' ? lexicalPath('.') : lexicalPath(dir), glob: true };
}

/** `/`, `~`, `*`, `.`, `$HOME`, a system dir or everything in one. */
function critical(t: Target): boolean {
  if (/^\$\{?HOME\}?\/?\*?$/.test(t.text)) return true;
  const p = t.path;
  if (p === undefined) return false;
  if (p.root !== '/' && p.root !== '.' && p.parts.length === 0) return true; // ~, ~user
  if (p.root === '.' && (p.parts.length === 0 || p.escapes) && (t.glob || t.text === '.' || /^\.\.(\/\.\.)*\/?$/.test(t.text))) return true;
  return CRITICAL.some((c) => same(p, c));
}

const underSystem = (p: LexicalPath | undefined): boolean => p !== undefined && SYSTEM.some((s) => isUnder(p, s));

/** Compiled sandbox: directories where destructive operations are allowed. */
export type Sandbox = LexicalPath[];

function inSandbox(t: Target, sandbox: Sandbox): boolean {
  if (/[$`]/.test(t.text) || t.path === undefined) return false; // unexpanded variables: unknown, so outside
  return sandbox.some((d) => isUnder(t.path!, d));
}

const flags = (args: string[]): string[] => {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).filter((a) => a.startsWith('-') && a.length > 1);
};
const operands = (args: string[]): string[] => {
  const end = args.indexOf('--');
  const before = (end < 0 ? args : args.slice(0, end)).filter((a) => !(a.startsWith('-') && a.length > 1));
  return end < 0 ? before : [...before, ...args.slice(end + 1)];
};
const hasShort = (fl: string[], ch: string): boolean => fl.some((f) => !f.startsWith('--') && f.slice(1).includes(ch));
/** The command for evidence; long non-path words are masked, since they may be tokens (`-H 'Bearer …'`). */
const show = (inv: Invocation): string =>
  [inv.name, ...inv.args].map((w) => (w.length > 24 && !w.startsWith('/') ? `${w.slice(0, 4)}…${w.length}` : w)).join(' ');
const DEVICE = /^\/dev\/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper\/|loop|sr)/;

export function destructiveDelete(inv: Invocation, sandbox: Sandbox): string | undefined {
  let targets: string[];
  let strong: boolean;
  if (inv.name === 'rm') {
    const fl = flags(inv.args);
    strong = hasShort(fl, 'r') || hasShort(fl, 'R') || hasShort(fl, 'f') || fl.some((f) => ['--recursive', '--force', '--no-preserve-root'].includes(f));
    targets = operands(inv.args);
  } else if (inv.name === 'find') {
    const acts = inv.args.some((a, k) => a === '-delete' || (/^-(exec|execdir|ok|okdir)$/.test(a) && /^(rm|shred|unlink)$/.test((inv.args[k + 1] ?? '').split('/').pop() ?? '')));
    if (!acts) return undefined;
    strong = true;
    const firstExpr = inv.args.findIndex((a) => /^[-(!]/.test(a));
    targets = (firstExpr < 0 ? inv.args : inv.args.slice(0, firstExpr));
    if (targets.length === 0) targets = ['.'];
  } else if (['shred', 'srm', 'wipe'].includes(inv.name)) {
    strong = true;
    targets = operands(inv.args).filter((t) => !DEVICE.test(t));
  } else return destroysOutside(inv, sandbox);
  if (inv.viaXargs) return strong ? `${inv.name} on targets read from stdin (xargs)` : undefined;
  for (const text of targets) {
    const t = target(text);
    // `find . -name '*.pyc' -delete` filters what it removes: `.` is not critical for find, only the sandbox counts.
    if (critical(t) && !(inv.name === 'find' && /^\.\/?$/.test(text))) return `${show(inv)} removes ${text}`;
    const inside = inSandbox(t, sandbox);
    if (strong && !inside) return `${show(inv)}: ${text} is outside the sandbox`;
    if (!strong && !inside && underSystem(t.path)) return `${show(inv)}: ${text} is a system file`;
  }
  return destroysOutside(inv, sandbox);
}

/**
 * A file outside the sandbox that `inv` removes, truncates or overwrites by the model of destroying operations
 * (destroys.ts: truncate, unlink, tee, dd, cp/install/ln -f onto it, mv, sed/perl -i, redirections, interpreter
 * one-liners). A relative target that does not climb out (`| tee build.log`, `sed -i … src/a.c`) is written in the
 * working directory the server chose: not flagged, except by a program that only destroys (`unlink`, `truncate`),
 * which is read as `rm -f` is. A path computed in code, a variable or `xargs` counts as outside; block devices are
 * `disk_destroy`'s.
 */
function destroysOutside(inv: Invocation, sandbox: Sandbox): string | undefined {
  for (const d of destroys(inv)) {
    if (d.unknownTarget || (inv.viaXargs && d.targets.length === 0)) return `${show(inv)} ${d.how}`;
    for (const text of d.targets) {
      const t = target(text);
      if (DEVICE.test(text)) continue;
      if (critical(t)) return `${show(inv)} ${d.how} ${text}`;
      if (inSandbox(t, sandbox)) continue;
      if (!d.removal && !/[$`]/.test(text) && t.path !== undefined && t.path.root === '.' && !t.path.escapes) continue;
      return `${show(inv)} ${d.how} ${text}, outside the sandbox`;
    }
  }
  return undefined;
}

export function permissionChange(inv: Invocation, sandbox: Sandbox): string | undefined {
  if (!['chmod', 'chown', 'chgrp', 'chattr', 'setfacl', 'chflags'].includes(inv.name)) return undefined;
  let ops = operands(inv.args);
  let mode: string | undefined;
  if (inv.name === 'chattr') {
    const m = inv.args.find((a) => /^[+=-][aAcCdDeiIjPsStTux]+$/.test(a));
    mode = m;
    ops = inv.args.filter((a) => a !== m && !a.startsWith('-'));
  } else if (inv.name !== 'setfacl') {
    mode = ops[0];
    ops = ops.slice(1);
  }
  if (inv.name === 'chmod' && mode !== undefined && (/^[0-7]?[2467][0-7]{3}$/.test(mode) || CHMOD_SETID.test(mode))) {
    return `${show(inv)} sets setuid/setgid`;
  }
  for (const text of ops) {
    const t = target(text);
    if (inSandbox(t, sandbox)) continue;
    if (critical(t) || underSystem(t.path)) return `${show(inv)} changes ${text}`;
  }
  return undefined;
}

const FETCHERS = new Set(['curl', 'wget', 'fetch', 'http', 'https', 'aria2c', 'lwp-download', 'lwp-request', 'get', 'iwr', 'irm', 'invoke-webrequest', 'invoke-restmethod', 'nc', 'ncat', 'scp', 'tftp']);
const INTERPRETERS = new Set([...SHELLS, 'python', 'python2', 'python3', 'perl', 'ruby', 'node', 'nodejs', 'php', 'lua', 'pwsh', 'powershell', 'iex', 'invoke-expression', 'source', '.', 'eval', 'deno', 'bun']);
const fetches = (s: string): boolean => /(?:^|[\s(|;&])(?:curl|wget|fetch|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|aria2c|nc|ncat)\b/i.test(s);

const fetcherIndex = new WeakMap<Invocation[], number>();

/** Index of the first download command in a pipeline (cached, so long pipelines stay linear). */
function firstFetcher(pipeline: Invocation[]): number {
  let k = fetcherIndex.get(pipeline);
  if (k === undefined) {
    k = pipeline.findIndex((e) => FETCHERS.has(e.name));
    if (k < 0) k = Number.POSITIVE_INFINITY;
    fetcherIndex.set(pipeline, k);
  }
  return k;
}

export function remoteExec(inv: Invocation): string | undefined {
  if (!INTERPRETERS.has(inv.name)) return undefined;
  // `curl … | sh`: an interpreter reading its program from stdin (no script operand, or `-`, or `-s`).
  const reading = operands(inv.args).length === 0 || inv.args.includes('-') || inv.args.includes('-s');
  if (reading && firstFetcher(inv.pipeline) < inv.position) return `network download piped into ${inv.name}`;
  // `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(wget -O- …)"`, `. <(curl …)`.
  if (inv.args.some((a) => /[$<]\(|`/.test(a) && fetches(a))) return `${inv.name} runs a network download`;
  return undefined;
}

/** A symbolic chmod mode that sets setuid/setgid (`u+s`, `g=rxs`); a run of `ugoa` is tried from its first letter only. */
export const CHMOD_SETID = /(?<![ugoa])[ugoa]*[+=][rwxXt]*s/;
/** `os.environ` read whole, not one key of it (`os.environ["X"]`, `os.environ.get('X')`). */
export const OS_ENVIRON_DUMP = /os\.environ(?!\s*[[.]\s*(?:get\s*\(\s*)?["'])/;
/** nc's flags that run a program for the peer: `-e`/`-c` among short flags (the first one is the one), `--exec` … */
export const NC_EXEC_FLAG = /^(-[abdf-z]*[ce][a-z]*|--exec|--sh-exec|--lua-exec)$/;
const SECRET_VAR = /\$\{?[A-Za-z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE|CREDENTIAL)[A-Za-z0-9_]*\}?/i;

export function envDump(inv: Invocation): string | undefined {
  if (inv.bareEnv) return 'env prints the whole environment';
  const ops = operands(inv.args);
  if (inv.name === 'printenv') {
    if (ops.length === 0) return 'printenv prints the whole environment';
    if (ops.some((o) => SECRET_VAR.test(`$${o}`))) return `printenv ${ops.join(' ')}`;
  }
  if ((inv.name === 'set' || inv.name === 'export' || inv.name === 'declare' || inv.name === 'typeset') && ops.length === 0 && inv.args.every((a) => ['-p', '-x', '-px', '-xp'].includes(a))) {
    if (inv.name !== 'set' || inv.args.length === 0) return `${show(inv)} prints the environment`;
  }
  if ([inv.name, ...inv.args, ...inv.cmd.redirects.map((r) => r.target)].some((a) => /\/proc\/[^/\s]+\/environ\b/.test(a))) return `${show(inv)} reads a process environment`;
  if (['echo', 'printf', 'print', 'curl', 'wget', 'nc', 'ncat', 'logger'].includes(inv.name)) {
    const v = inv.args.find((a) => SECRET_VAR.test(a));
    if (v !== undefined) return `${inv.name} expands ${SECRET_VAR.exec(v)![0]}`;
  }
  const code = inv.args.join(' ');
  if (/^python[23]?$/.test(inv.name) && OS_ENVIRON_DUMP.test(code)) return 'python dumps os.environ';
  if (/^(node|nodejs|deno|bun)$/.test(inv.name) && /process\.env(?!\s*(?:\.\w|\[\s*["']))/.test(code)) return `${inv.name} dumps process.env`;
  if (inv.name === 'ruby' && /\bENV(?!\s*(?:\[|\.fetch))/.test(code)) return 'ruby dumps ENV';
  if (inv.name === 'perl' && /%ENV\b/.test(code)) return 'perl dumps %ENV';
  return undefined;
}

export function diskDestroy(inv: Invocation): string | undefined {
  if (/^(mkfs(\..+)?|mke2fs|mkswap|mkntfs|mkdosfs|wipefs|newfs(_.+)?)$/.test(inv.name)) return `${show(inv)} formats a file system`;
  if (inv.name === 'dd') {
    const of = inv.args.find((a) => a.startsWith('of='));
    if (of && DEVICE.test(of.slice(3))) return `dd writes to ${of.slice(3)}`;
  }
  if (['shred', 'wipe', 'blkdiscard'].includes(inv.name)) {
    const dev = operands(inv.args).find((t) => DEVICE.test(t));
    if (dev) return `${inv.name} destroys ${dev}`;
  }
  if (inv.name === 'sgdisk' && inv.args.some((a) => /^(-Z|-o|--zap-all|--clear)$/.test(a))) return `${show(inv)} wipes a partition table`;
  if (inv.name === 'diskutil' && inv.args.some((a) => /^(eraseDisk|eraseVolume|zeroDisk|randomDisk|secureErase|partitionDisk)$/i.test(a))) return `${show(inv)} erases a disk`;
  const red = inv.cmd.redirects.find((r) => r.op.includes('>') && DEVICE.test(r.target));
  if (red) return `output redirected onto ${red.target}`;
  return undefined;
}

export function reverseShell(inv: Invocation): string | undefined {
  const all = [inv.name, ...inv.args, ...inv.cmd.redirects.map((r) => r.target)];
  if (all.some((a) => /\/dev\/(tcp|udp)\//.test(a))) return `${inv.name} uses /dev/tcp`;
  if (/^(nc|ncat|netcat)$/.test(inv.name) && inv.args.some((a) => NC_EXEC_FLAG.test(a))) return `${inv.name} executes a program for a remote peer`;
  if (inv.name === 'socat' && inv.args.some((a) => /^(exec|system):/i.test(a))) return 'socat connects a program to the network';
  if (/^python[23]?$/.test(inv.name) && /socket/.test(inv.args.join(' ')) && /subprocess|pty\.spawn|os\.dup2/.test(inv.args.join(' '))) return 'python reverse shell';
  return undefined;
}

export function gitDestructive(inv: Invocation): string | undefined {
  if (inv.name !== 'git') return undefined;
  const sub = inv.args.find((a) => !a.startsWith('-'));
  const rest = inv.args.slice(inv.args.indexOf(sub ?? '') + 1);
  if (sub === 'push' && rest.some((a) => /^(-f|--force|--force-with-lease.*|--mirror|--delete|-d)$/.test(a) || /^\+/.test(a))) return `${show(inv)} rewrites remote history`;
  if (sub === 'reset' && rest.includes('--hard')) return `${show(inv)} discards work`;
  if (sub === 'clean' && rest.some((a) => /^-[a-z]*f/.test(a) || a === '--force')) return `${show(inv)} deletes untracked files`;
  if (sub === 'filter-branch' || (sub === 'branch' && rest.includes('-D'))) return `${show(inv)} rewrites history`;
  return undefined;
}

const CREDENTIAL_FILE = /(?:^|\/)(?:\.ssh\/id_[a-z0-9]+(?!\.pub)\b|id_(?:rsa|dsa|ecdsa|ed25519)$|\.aws\/credentials|\.netrc|\.pgpass|\.git-credentials|\.docker\/config\.json|\.kube\/config|\.npmrc|\.pypirc|\.env(?:\.[a-z]+)?$|shadow$|gshadow$|\.gnupg\/)/;

export function credentialRead(inv: Invocation): string | undefined {
  const f = [...inv.args, ...inv.cmd.redirects.filter((r) => r.op.startsWith('<')).map((r) => r.target)].find((a) => CREDENTIAL_FILE.test(a) && (!a.endsWith('shadow') || a.startsWith('/etc/')));
  return f === undefined ? undefined : `${inv.name} touches ${f}`;
}
