import { closeSync, createWriteStream, openSync, writeSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import { InvalidArgumentError, type Command } from 'commander';
import { StoreError } from '../core/errors.js';
import { printable, printableJson } from '../core/printable.js';
import type { AuditRow } from '../store/audit.js';
import { exportNdjson } from '../store/audit-export.js';
import { isoTime, storeOptions, withStore, type StoreCliOptions } from './store-options.js';

/**
 * One line of `audit tail`: id, time, verdict, kind, agent, target, rules, who decided (unless the pipeline),
 * rationale. Every control character in it is escaped (core/printable.ts): a name from a client cannot forge a row.
 */
export function formatAuditLine(r: AuditRow): string {
  return printable(auditLine(r));
}

function auditLine(r: AuditRow): string {
  const target = r.kind === 'admin'
    ? `${r.tool ?? ''}${r.server ? ` ${r.server}` : ''}`
    : r.uri ?? (r.server || r.tool ? `${r.server ?? ''}__${r.tool ?? ''}` : r.recipient ? `→ ${r.recipient}` : '-');
  const rules = r.rules.length > 0 ? ` [${r.rules.join(',')}]` : '';
  // Who decided, when it was not the policy pipeline (filter, hidden, unknown, limits, identity, quarantine, ui…).
  const by = r.source !== 'pipeline' ? ` (by ${r.source})` : '';
  const rationale = r.rationale.length > 100 ? `${r.rationale.slice(0, 100)}…` : r.rationale;
  return `${r.auditId}  ${isoTime(r.ts)}  ${r.decision.padEnd(5)}  ${r.kind.padEnd(13)}  ${r.agent}  ${target}${rules}${by}  ${rationale}`;
}

/**
 * `quadguard audit tail|show|verify|export`: read, check and export the hash-chained decisions log. `verify`
 * exits 1 and names the first bad row when the log was tampered with.
 */
export function registerAuditCommands(program: Command): void {
  const audit = program.command('audit').description('read, verify and export the audit log of guard decisions');

  storeOptions(audit.command('tail').description('print the last decisions, oldest first'))
    .option('-n, --lines <n>', 'how many rows', (v) => positiveInt(v, '-n'), 20)
    .option('--json', 'one JSON object per line')
    .action(async (opts: StoreCliOptions & { lines: number; json?: boolean }) => {
      await withStore(opts, async (store) => {
        for (const r of await store.audit.tail(opts.lines)) process.stdout.write(`${opts.json ? printableJson(JSON.stringify(r)) : formatAuditLine(r)}\n`);
      });
    });

  storeOptions(audit.command('show <id>').description('print one row as JSON (id as 42, 42-3fa9c1d2 or a journaled decision\'s j7f3a9c2e1b40.2a)')).action(
    async (id: string, opts: StoreCliOptions) => {
      await withStore(opts, async (store) => {
        const row = await store.audit.get(id);
        if (!row) throw new StoreError('store_row_not_found', `no audit row ${id} (see \`quadguard audit tail\`)`);
        process.stdout.write(`${printableJson(JSON.stringify(row, null, 2))}\n`);
      });
    },
  );

  storeOptions(audit.command('verify').description('check the keyed hash chain and its signed head; exit 1 naming the first edited, deleted, reordered or truncated row'))
    .option('--json', 'print the result as JSON')
    .option('--anchor <id:hash>', 'a head printed by an earlier verify (or an auditId): fail if that row is gone or changed', parseAnchor)
    .option('--head <file>', 'another signed head file to check (a PostgreSQL replica\'s, see docs/shared-state.md); repeatable', (v: string, prev: string[] = []) => [...prev, v])
    .action(async (opts: StoreCliOptions & { json?: boolean; anchor?: { id: number; hash: string }; head?: string[] }) => {
      await withStore(opts, async (store) => {
        const r = await store.audit.verify({ ...(opts.anchor ? { anchor: opts.anchor } : {}), ...(opts.head ? { heads: opts.head } : {}) });
        for (const w of r.warnings) process.stderr.write(`quadguard: warning: ${w}\n`);
        if (opts.json) process.stdout.write(`${printableJson(JSON.stringify(r))}\n`);
        else if (r.ok) {
          const head = r.head ? `; head ${r.head.id}:${r.head.hash}` : '';
          const heads = r.heads === 1 ? ' and a valid signed head' : r.heads ? ` and ${r.heads} valid signed heads` : '';
          const keyed = r.keyed ? `, ${r.keyed} with valid MACs${heads}` : '';
          const from = r.from ? ` (rows 1–${r.from.id} dropped by retention: verified from its anchor)` : '';
          process.stdout.write(`audit log ok: ${r.rows} rows${keyed}${head}${from}\n`);
        } else {
          process.stdout.write(`${printable(`audit log TAMPERED: first bad row ${r.firstBad!.id}: ${r.firstBad!.reason} (${r.rows} rows verified before it)`)}\n`);
        }
        if (!r.ok) process.exitCode = 1;
      });
    });

  registerAuditPrune(audit);

  storeOptions(audit.command('export').description('write every row as NDJSON, to stdout or --out'))
    .option('--ndjson', 'newline-delimited JSON (the only format, and the default)')
    .option('--out <file>', 'write to this new file instead of stdout (never overwrites)')
    .option('--from <id>', 'start at this row id', (v) => positiveInt(v, '--from'), 1)
    .action(async (opts: StoreCliOptions & { out?: string; from: number }) => {
      await withStore(opts, async (store) => {
        if (!opts.out) {
          await exportNdjson(store.audit, process.stdout, opts.from);
          return;
        }
        const out = createWriteStream(opts.out, { flags: 'wx' });
        const n = await exportNdjson(store.audit, out, opts.from);
        out.end();
        await finished(out);
        process.stderr.write(`exported ${n} rows to ${opts.out}\n`);
      });
    });
}

/**
 * `quadguard audit prune`: retention. Drops the rows older than N days (from the start of the log), after writing
 * them to `--export` when given, and keeps an anchor (the last dropped row's hash, MACed) from which `verify` walks.
 */
export function registerAuditPrune(audit: Command): void {
  storeOptions(audit.command('prune').description('drop audit rows older than --older-than days, keeping the rest verifiable from a MACed anchor (docs/audit.md)'))
    .requiredOption('--older-than <days>', 'drop rows written more than this many days ago', (v) => positiveInt(v, '--older-than'))
    .option('--export <file>', 'first write the rows dropped to this new NDJSON file (never overwrites)')
    .action(async (opts: StoreCliOptions & { olderThan: number; export?: string }) => {
      await withStore(opts, async (store) => {
        const before = Date.now() - opts.olderThan * 86_400_000;
        const fd = opts.export === undefined ? undefined : openSync(opts.export, 'wx', 0o600);
        try {
          const r = await store.audit.prune(before, fd === undefined ? undefined : (row) => writeSync(fd, `${JSON.stringify(row)}\n`));
          const where = r.anchor ? `; the kept chain verifies from row ${r.anchor.id} (${r.anchor.dropped} rows dropped in all)` : '';
          process.stdout.write(`dropped ${r.dropped} audit rows written before ${new Date(before).toISOString()}${opts.export && r.dropped > 0 ? `, exported to ${opts.export}` : ''}${where}\n`);
        } finally {
          if (fd !== undefined) closeSync(fd);
        }
      });
    });
}

/** Parses a non-negative integer option, or throws a usage error (exit 2) naming the option. */
export function positiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new InvalidArgumentError(`${name} expects a non-negative integer, got ${value}`);
  return n;
}

/** `--anchor 42:3fa9…` or `42-3fa9c1d2` (an auditId). */
export function parseAnchor(value: string): { id: number; hash: string } {
  const m = /^(\d+)[:-]([0-9a-f]{8,64})$/i.exec(value.trim());
  if (!m) {
    // A journaled decision's id carries no hash: its row's `<id>-<hash>` is in `audit show <ref>`.
    const journaled = /^j[0-9a-f]{12}\./i.test(value.trim()) ? `; ${value} is a journaled decision's id, which carries no hash: take the row's id and hash from \`quadguard audit show ${value}\`` : '';
    throw new InvalidArgumentError(`--anchor expects <id>:<hash> (as printed by audit verify) or an auditId like 42-3fa9c1d2, got ${value}${journaled}`);
  }
  return { id: Number(m[1]), hash: m[2]!.toLowerCase() };
}
