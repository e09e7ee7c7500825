import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { PolicyError } from '../core/errors.js';
import { addCompileSubcommand } from './compile.js';
import { addPolicyAddSubcommand } from './policy-add.js';
import { AnyInteractionSchema, type Interaction } from '../core/types.js';
import type { Explanation } from '../guard/explain.js';
// The modules `policy check` needs, not the policy barrel (signing, explanation): loaded per command below.
import { formatDiagnostic, PolicyBookError } from '../policy/errors.js';
import { loadBook } from '../policy/load.js';

/**
 * `quadguard policy …`: check (validate and lint), explain (what the guard decides on one interaction, and why),
 * sign, verify, keygen. Results go to stdout; failures throw and the program prints them on stderr with exit code 1.
 */

/** `{…}` inline, or `@file` holding JSON. */
async function readJsonArg(value: string, what: string): Promise<unknown> {
  const text = value.startsWith('@') ? await readFile(value.slice(1), 'utf8') : value;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new PolicyError('policy_read_error', `${what} is not valid JSON: ${(e as Error).message}`);
  }
}

async function readInteraction(value: string, profile: string | undefined): Promise<Interaction> {
  const raw = (await readJsonArg(value, '--interaction')) as Record<string, unknown>;
  const merged: Record<string, unknown> = { agent: 'cli', session: 'explain', ...raw };
  if (profile !== undefined) merged.profile = await readJsonArg(profile, '--profile');
  // Interactions written before the kinds union (`resource_read` with a `phase`) are accepted too.
  const r = AnyInteractionSchema.safeParse(merged);
  if (!r.success) throw new PolicyError('policy_read_error', `--interaction is not a valid interaction: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return r.data;
}

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** The human-readable form of an explanation. */
export function renderReport(report: Explanation): string {
  const lines: string[] = [];
  const width = Math.max(9, ...report.predicates.map((p) => p.name.length));
  lines.push(`${pad('predicate', width)}  ${pad('value', 8)} evidence`);
  for (const p of report.predicates) {
    const value = p.applies ? p.value : 'n/a';
    const ev = p.applies ? (p.evidence ?? '') : 'scope does not cover this interaction';
    const score = p.score !== undefined && p.score < 1 ? ` (score ${p.score.toFixed(2)})` : '';
    const skipped = p.applies && !p.candidate && p.value !== 'false' ? ' [not among the guard\'s candidates: taken as false]' : '';
    lines.push(`${pad(p.name, width)}  ${pad(value, 8)} ${ev}${score}${skipped}`.trimEnd());
  }
  lines.push('');
  if (report.rules.length === 0) lines.push('no rule applies to this interaction kind');
  for (const r of report.rules) {
    lines.push(`${pad(r.status, 9)} ${r.id} [${r.rule.def.severity}${r.rule.def.hard ? ', hard' : ''}${r.rule.def.mode === 'monitor' ? ', monitor' : ''}]: ${r.rule.def.formula}`);
    if (r.witness) {
      const w = Object.entries(r.witness.predicates).map(([n, v]) => `${n}=${v}`).join(', ');
      lines.push(`          witness: ${w || '(none)'}  confidence ${r.witness.confidence.toFixed(2)}${r.status === 'unknown' ? `  on_unknown: ${r.rule.onUnknown}` : ''}`);
    }
  }
  lines.push('');
  const d = report.decision;
  lines.push(
    `decision (the guard on a fresh session, as the proxy decides): ${d.decision}${d.rules.length ? ` (${d.rules.join(', ')})` : ''}${d.flagged.length ? `; flagged: ${d.flagged.join(', ')}` : ''}; threat level after: ${d.threatLevel ?? 0}`,
  );
  lines.push(`rationale: ${d.rationale}`);
  return `${lines.join('\n')}\n`;
}

/** Registers `policy check|explain|sign|verify|keygen` on the program. */
export function registerPolicyCommands(program: Command): void {
  const policy = program.command('policy').description('Check, explain, sign and verify policy books');

  policy
    .command('check <book>')
    .description('Validate and lint a policy book (directory with book.yaml/book.json, or a file)')
    .action(async (book: string) => {
      try {
        const { warnings, compiled, file } = await loadBook(book);
        for (const w of warnings) process.stdout.write(`${formatDiagnostic(w)}\n`);
        // A signed book edited since: serve (with policy_public_key) refuses it, so check says so now.
        const { signatureState } = await import('../policy/sign.js');
        const sig = await signatureState(file, compiled);
        if (sig && !sig.matches) {
          process.stdout.write(`${sig.sigFile}: the signature no longer matches: the book changed since it was signed (signed hash ${sig.signedHash.slice(0, 16) || 'unreadable'}, now ${compiled.hash.slice(0, 16)}); \`quadguard serve\` will refuse it. After reviewing the change: quadguard policy sign ${book} --key <private.pem>\n`);
          process.exitCode = 1;
        }
        process.stdout.write(`${book}: ${sig && !sig.matches ? 'valid but not signed as it is' : 'ok'}: ${compiled.book.name}@${compiled.book.version}, ${compiled.predicates.length} predicates, ${compiled.rules.length} rules, ${warnings.length} warning(s), hash ${compiled.hash.slice(0, 16)}${sig?.matches ? ', signed' : ''}\n`);
      } catch (e) {
        if (!(e instanceof PolicyBookError)) throw e;
        for (const d of [...e.errors, ...e.warnings]) process.stdout.write(`${formatDiagnostic(d)}\n`);
        process.stdout.write(`${book}: ${e.errors.length} error(s), ${e.warnings.length} warning(s)\n`);
        process.exitCode = 1;
      }
    });

  policy
    .command('explain <book>')
    .description("Show what the guard decides on one interaction (fresh session) and why: every predicate, every rule of the interaction's kind, the decision")
    .requiredOption('--interaction <json>', 'the interaction, inline JSON or @file')
    .option('--profile <json>', 'agent profile, inline JSON or @file')
    .option('--json', 'machine-readable output')
    .action(async (book: string, opts: { interaction: string; profile?: string; json?: boolean }) => {
      const { compiled } = await loadBook(book);
      const interaction = await readInteraction(opts.interaction, opts.profile);
      // The guard is loaded for explain only: `policy check` starts without it.
      const { explainInteraction } = await import('../guard/explain.js');
      const report = await explainInteraction(compiled, interaction);
      if (opts.json) {
        const d = report.decision;
        const out = {
          book: { name: compiled.book.name, version: compiled.book.version, hash: compiled.hash },
          interaction,
          predicates: report.predicates,
          rules: report.rules.map(({ rule, ...r }) => ({ ...r, formula: rule.def.formula, severity: rule.def.severity, hard: rule.def.hard, mode: rule.def.mode, on_unknown: rule.onUnknown })),
          decision: { decision: d.decision, rules: d.rules, flagged: d.flagged, rationale: d.rationale, threatLevel: d.threatLevel, source: d.source, ...(d.remediation ? { remediation: d.remediation } : {}), ...(d.replacement ? { replacement: d.replacement } : {}) },
          // Short forms of decision.*, as before.
          verdict: d.decision,
          denying: d.rules,
          flagged: d.flagged,
        };
        process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      } else process.stdout.write(renderReport(report));
    });

  policy
    .command('sign <book>')
    .description('Sign a policy book (ed25519); writes book.sig beside it')
    .requiredOption('--key <private.pem>', 'ed25519 private key (PEM)')
    .action(async (book: string, opts: { key: string }) => {
      const { signBook } = await import('../policy/sign.js');
      const { sigFile, signature } = await signBook(book, await readFile(opts.key, 'utf8'));
      process.stdout.write(`signed ${signature.hash.slice(0, 16)} with key ${signature.keyId}: ${sigFile}\n`);
    });

  policy
    .command('verify <book>')
    .description("Verify a policy book's signature")
    .requiredOption('--pub <public.pem>', 'ed25519 public key (PEM)')
    .action(async (book: string, opts: { pub: string }) => {
      const { verifyBook } = await import('../policy/sign.js');
      const { signature } = await verifyBook(book, await readFile(opts.pub, 'utf8'));
      process.stdout.write(`ok: signature by key ${signature.keyId} verifies, hash ${signature.hash.slice(0, 16)}\n`);
    });

  policy
    .command('keygen')
    .description('Create an ed25519 key pair for signing books: <prefix>.key.pem (private) and <prefix>.pub.pem')
    .requiredOption('--out <prefix>', 'path prefix of the two files')
    .action(async (opts: { out: string }) => {
      const { generateSigningKeys } = await import('../policy/sign.js');
      const keys = generateSigningKeys();
      await mkdir(dirname(resolve(opts.out)), { recursive: true });
      // `wx`: never overwrite an existing key; the private key is readable by its owner only.
      await writeFile(`${opts.out}.key.pem`, keys.privateKeyPem, { flag: 'wx', mode: 0o600 });
      await writeFile(`${opts.out}.pub.pem`, keys.publicKeyPem, { flag: 'wx' });
      process.stdout.write(`key ${keys.keyId}: ${opts.out}.key.pem (private), ${opts.out}.pub.pem (public)\n`);
    });

  addCompileSubcommand(policy);
  addPolicyAddSubcommand(policy);
}
