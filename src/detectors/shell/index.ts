import { z } from 'zod';
import { defineDetector } from '../registry.js';
import { clip, configError, cutOrNo, FieldSelectorSchema, fromFindings, inspectedFields, MAX_SPANS, unknown, type Finding } from '../common.js';
import { lexicalPath } from '../posix-path.js';
import { invocations, type Invocation } from './commands.js';
import { commandVectors } from './vectors.js';
import { atPath } from '../../core/fields.js';
import { argumentsOf } from '../../core/types.js';
import {
  credentialRead,
  DEFAULT_SHELL_CATEGORIES,
  destructiveDelete,
  diskDestroy,
  envDump,
  gitDestructive,
  permissionChange,
  remoteExec,
  reverseShell,
  SHELL_CATEGORIES,
  type Sandbox,
  type ShellCategory,
} from './rules.js';

/**
 * `shell_risk`: dangerous shell commands in the selected text (default field: `arguments`, every string leaf).
 *
 * The text is parsed (see `shell-parse.ts`: `;` `&&` `||` `|` `&` newlines, quotes, backslashes, redirections,
 * `$(…)`/`<(…)`/backticks), wrappers are peeled (`sudo`, `env`, `VAR=x`, `nohup`, `timeout`, `xargs`…), and
 * `bash -c '…'`, `su -c`, `eval` and substitutions are read as nested scripts, two levels deep.
 *
 * Categories (`categories`, default the first five):
 * - `destructive_delete`: `rm -r/-R/-f/--recursive/--force`, `find … -delete|-exec rm`, `shred`/`srm`/`wipe` on a
 *   target outside `sandbox`, or any `rm` of `/`, `~`, `*`, `.`, `$HOME`, a system directory itself or a glob in it
 *   (these even inside the sandbox), or a plain `rm` of a file under a system directory; and, by a model of what an
 *   invocation destroys (destroys.ts), any removal, truncation or overwrite of a file outside `sandbox`: `unlink`,
 *   `truncate`, `tee` (not `-a`), `dd of=`, `cp`/`install`/`ln -f` onto it, `mv` (source or destination),
 *   `sed -i`/`perl -i`/`ruby -i`, truncating redirections (`>`, `>|`, `&>`, `2>`), and `python -c`/`node -e`/`perl
 *   -e`/`ruby -e`/`php -r` code calling a remove or write-over function on a path it spells (a computed path counts
 *   as outside). A relative target that does not climb out is the server's working directory (not flagged), except
 *   for `unlink` and `truncate`, read as `rm -f` is. `$IFS` splits words. Targets with unexpanded variables, or read
 *   by `xargs`, count as outside.
 * - `permission_change`: `chmod`/`chown`/`chgrp`/`chattr`/`setfacl`/`chflags` on `/`, `~` or anything under a system
 *   directory (/etc, /usr, /bin, /sbin, /lib*, /boot, /var, /opt, /root, /dev, /proc, /sys, /System, /Library…)
 *   not in the sandbox; any `chmod` that sets setuid/setgid.
 * - `remote_exec`: a download (`curl`, `wget`, `iwr`, `nc`…) piped into an interpreter reading stdin (`| sh`,
 *   `| sudo bash -s`, `| python3 -`), or an interpreter/`eval`/`source` fed a download by substitution
 *   (`bash <(curl …)`, `sh -c "$(curl …)"`), PowerShell `iex (iwr …)`.
 * - `env_dump`: bare `env`/`printenv`/`export -p`/`set`/`declare -p`, `printenv <SECRET_VAR>`, reading
 *   `/proc/*\/environ`, `echo`/`printf`/`curl` expanding a secret-named variable (`$AWS_SECRET_ACCESS_KEY`,
 *   `*TOKEN*`, `*PASSWORD*`, `*API_KEY*`…), `python -c` on `os.environ`, `node -e` on `process.env`, ruby `ENV`,
 *   perl `%ENV`.
 * - `disk_destroy`: `mkfs*`, `mke2fs`, `mkswap`, `wipefs`, `dd of=/dev/sd*|nvme*|disk*…`, `shred /dev/…`,
 *   `sgdisk --zap-all`, `diskutil eraseDisk`, output redirected onto a block device, the fork bomb `:(){ :|:& };:`.
 * - optional `reverse_shell` (`/dev/tcp/`, `nc -e`, `socat exec:`, python socket + subprocess),
 *   `git_destructive` (`push --force`/`+ref`/`--delete`, `reset --hard`, `clean -f`, `branch -D`, `filter-branch`),
 *   `credential_read` (`~/.ssh/id_*`, `~/.aws/credentials`, `.netrc`, `.env`, `/etc/shadow`, `.kube/config`…).
 *
 * Command vectors in the arguments (`{command: "rm", args: ["-rf", "/x"]}`, `{argv: ["rm", "-rf", "/x"]}`; see
 * `vectors.ts`) are also read joined into one command line, each word quoted.
 *
 * `sandbox`: absolute (`/tmp`), home (`~/scratch`) or relative (`.`, `build`) directories; relative ones match only
 * relative targets, lexically. A missing field is `false` (nothing to run). Evidence names the category and the
 * command (clipped); spans cover the offending command.
 *
 * Bounded work: the command reader parses only the first `SHELL_PARSE_CHARS` (16 KiB) of each field, cut at the
 * last command separator before that point (parsing is 0.5–2 s per 250 KB; one huge argument must not block the
 * event loop). The rest, to the end of the text (16 MiB in all), is only scanned for the command words of the
 * selected categories (`rm`, `chmod`, `curl`, `mkfs`, `printenv`…): if one appears there and nothing was found in
 * the parsed part, the value is `unknown` (the rule's `on_unknown` decides; hard rules deny), never `false`.
 *
 * @example { type: shell_risk, field: arguments.command, sandbox: ['/tmp', '/workspace'] }
 */
export const ShellRiskOptionsSchema = z.strictObject({
  field: FieldSelectorSchema.default('arguments'),
  sandbox: z.array(z.string().min(1)).default([]),
  categories: z.array(z.enum(SHELL_CATEGORIES)).min(1).optional(),
});
export type ShellRiskOptions = z.infer<typeof ShellRiskOptionsSchema>;

/** Characters of each field the command reader parses (see the doc comment above). */
export const SHELL_PARSE_CHARS = 16 * 1024;

/**
 * Words that can start a risky command of each category: what the unparsed tail of a long field is scanned for.
 * A superset of what the checks recognise; a hit only makes the value unknown.
 */
export const TAIL_SIGNALS: Record<ShellCategory, RegExp> = {
  destructive_delete: /\b(?:rm|rmdir|shred|srm|wipe|unlink)\b|-delete\b/,
  permission_change: /\b(?:chmod|chown|chgrp|chattr|setfacl|chflags)\b/,
  remote_exec: /\b(?:curl|wget|iwr|irm|nc|ncat|socat|aria2c|Invoke-WebRequest|Invoke-RestMethod|DownloadString)\b/i,
  env_dump: /\b(?:env|printenv|environ|declare|export)\b|process\.env|%ENV|\bENV\[|\$\{?[A-Z_]*(?:TOKEN|SECRET|PASSW|KEY)|^[^\S\n\r\u2028\u2029]*set\s*$/m,
  disk_destroy: /\b(?:mkfs[\w.]*|mke2fs|mkswap|wipefs|dd|sgdisk|diskutil)\b|\/dev\/|\(\)\s*\{/,
  reverse_shell: /\/dev\/(?:tcp|udp)|\b(?:nc|ncat|socat|telnet)\b|socket/,
  git_destructive: /\bgit\b/,
  credential_read: /\.ssh|\.aws|\.netrc|\.env\b|shadow|\.kube|\.docker|\.gnupg|credentials/,
};

/** Interpreters a download may be piped into: with a download in the parsed start, one in the tail is a signal too. */
const TAIL_INTERPRETER = /\b(?:iex|sh|bash|zsh|dash|ksh|fish|python[\d.]*|perl|ruby|node|php|pwsh|powershell)\b/i;

/** Where to stop parsing a long text: the last separator (newline, `;`, `&`, `|`) before the cap, else the cap. */
function parseEnd(text: string): number {
  if (text.length <= SHELL_PARSE_CHARS) return text.length;
  for (let k = SHELL_PARSE_CHARS; k > SHELL_PARSE_CHARS / 2; k--) {
    const c = text.charCodeAt(k - 1);
    if (c === 10 || c === 59 || c === 38 || c === 124) return k;
  }
  return SHELL_PARSE_CHARS;
}

const CHECKS: Record<ShellCategory, (inv: Invocation, sandbox: Sandbox) => string | undefined> = {
  destructive_delete: destructiveDelete,
  permission_change: permissionChange,
  remote_exec: remoteExec,
  env_dump: envDump,
  disk_destroy: diskDestroy,
  reverse_shell: reverseShell,
  git_destructive: gitDestructive,
  credential_read: credentialRead,
};

/** Whole-text patterns the command reader cannot see: the fork bomb and PowerShell's `iex (iwr …)`. */
const RAW: Array<{ category: ShellCategory; re: RegExp; why: string }> = [
  // eslint-disable-next-line regexp/no-super-linear-backtracking -- \1 is a non-empty name of word characters, : and . (no white space), so the white-space runs around it cannot trade characters; 16 / 64 KB of spaces inside a candidate 0.09 / 0.22 ms
  { category: 'disk_destroy', re: /([\w:.]{1,20})\s*\(\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}\s*;?\s*\1/g, why: 'fork bomb' },
  { category: 'remote_exec', re: /\b(?:iex|Invoke-Expression)\b[\s(]{1,8}(?:\(?New-Object\s+Net\.WebClient\)?\.DownloadString|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|curl|wget)\b/gi, why: 'PowerShell runs a network download' },
];

export const shellRiskDetector = defineDetector({
  type: 'shell_risk',
  summary: 'true when shell text deletes, re-permissions, wipes, dumps the environment or runs downloaded code',
  options: ShellRiskOptionsSchema,
  create(opts, ctx) {
    const sandbox: Sandbox = opts.sandbox.map((d) => {
      const p = lexicalPath(d);
      if (p === undefined || p.escapes) throw configError(ctx, `shell_risk: sandbox entry "${d}" is not a directory path`);
      if (p.root === '/' && p.parts.length === 0) throw configError(ctx, 'shell_risk: sandbox "/" would allow everything; list real directories');
      return p;
    });
    const categories = opts.categories ?? DEFAULT_SHELL_CATEGORIES;
    const checks = categories.map((c) => [c, CHECKS[c]] as const);
    const raw = RAW.filter((r) => categories.includes(r.category));
    const tail = categories.map((c) => TAIL_SIGNALS[c]);
    const remote = categories.includes('remote_exec');
    const field = opts.field;
    return function shell_risk(i) {
      const findings: Finding[] = [];
      const unparsed: string[] = [];
      const fields = inspectedFields(i, field);
      // Command vectors (`{command: "rm", args: ["-rf", "/x"]}`) are read joined, as the one command they are.
      if (field === 'arguments' || field === 'any' || field.startsWith('arguments.')) {
        const args = argumentsOf(i);
        const scope = field.startsWith('arguments.') ? atPath(args, field.slice('arguments.'.length)) : args;
        for (const v of commandVectors(scope)) fields.push(field.startsWith('arguments.') ? { ...v, field: v.field.replace(/^arguments/, field) } : v);
      }
      for (const f of fields) {
        for (const r of raw) {
          r.re.lastIndex = 0;
          const m = r.re.exec(f.text);
          if (m) findings.push({ kind: r.category, field: f.field, start: m.index, end: m.index + m[0].length, shown: r.why });
        }
        const end = parseEnd(f.text);
        if (end < f.text.length) {
          const rest = f.text.slice(end);
          // A pipeline cut at the cap may hold the download before it and the interpreter after it.
          const split = remote && TAIL_SIGNALS.remote_exec.test(f.text.slice(0, end)) && TAIL_INTERPRETER.test(rest);
          if (split || tail.some((re) => re.test(rest))) unparsed.push(f.field);
        }
        for (const inv of invocations(end < f.text.length ? f.text.slice(0, end) : f.text)) {
          for (const [category, check] of checks) {
            const why = check(inv, sandbox);
            if (why === undefined) continue;
            findings.push({ kind: category, field: f.field, start: Math.max(0, inv.start), end: Math.max(inv.start, inv.end), shown: `(${clip(why, 100)})` });
            break;
          }
          if (findings.length >= MAX_SPANS) break;
        }
      }
      if (findings.length === 0 && unparsed.length > 0) {
        return unknown(`shell_risk: ${unparsed.slice(0, 3).join(', ')} longer than ${SHELL_PARSE_CHARS / 1024} KiB; only the start was parsed and the rest names a command word of a checked category`);
      }
      if (findings.length === 0) return cutOrNo('shell_risk', fields);
      return fromFindings('shell_risk', findings);
    };
  },
});
