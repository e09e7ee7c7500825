import { buildGuard, type BuildGuardOptions, type PreparedBook } from '../guard/build.js';
import { expandKinds, KIND_ALIASES, type BookKindName } from '../core/kinds.js';
import type { Interaction } from '../core/types.js';
import type { CompiledBook } from '../policy/compiled.js';
import type { AuditRow } from '../store/audit-schema.js';
import type { RecordedItem } from './load.js';
import type { ReplayEntry, ReplayReport } from './report.js';

/**
 * Replay (regression testing of policy edits over real traces): re-decide recorded interactions under another
 * policy book and list the decisions that change.
 *
 * The interactions go through one fresh pipeline over an in-memory store, in audit-id order: each session sees
 * its interactions in the order they happened, and sessions interleave as they did, so sticky predicates (Γ per
 * session) and threat (τ per agent, burst window on the recorded timestamps) evolve as in the recorded run —
 * under the new book. The recorded store is only read.
 */

/** Options of `replayTrace`. */
export interface ReplayOptions {
  /** The book to replay under (see `prepareBook`). */
  prepared: PreparedBook;
  /** Shown in the report (the audit file). */
  source: string;
  /** Pipeline settings (tracker budget, watcher, thresholds), as in the config's `guard:`. */
  options?: BuildGuardOptions['settings'];
}

/** Rules whose formula uses a predicate with a `secrets` detector: what a masked interaction cannot re-decide. */
export function secretRuleIds(book: CompiledBook): string[] {
  const secretPreds = new Set(book.predicates.filter((p) => p.def.detectors.some((d) => d.type === 'secrets')).map((p) => p.name));
  return book.rules.filter((r) => r.predicates.some((n) => secretPreds.has(n))).map((r) => r.id);
}

function target(row: AuditRow): string {
  if (row.uri) return row.uri;
  if (row.server || row.tool) return `${row.server ?? ''}__${row.tool ?? ''}`;
  return row.recipient ? `→ ${row.recipient}` : '-';
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');

/**
 * Re-decides every replayable item under `opts.prepared` and compares with the recorded verdicts.
 *
 * @example
 * const prepared = await prepareBook('policies/default');
 * const store = await openGuardStore('state.db', undefined, { mustExist: true }); // or a postgres:// URL
 * const report = await replayTrace(readRecorded(store), { prepared, source: 'state.db' });
 */
export async function replayTrace(items: Iterable<RecordedItem> | AsyncIterable<RecordedItem>, opts: ReplayOptions): Promise<ReplayReport> {
  const { book } = opts.prepared;
  const secret = secretRuleIds(book);
  // A row's kind may be `resource_read` (recorded before the kinds union): it stands for the kinds it expands to.
  const secretByKind = (kind: string) => {
    const kinds = kind in KIND_ALIASES ? expandKinds([kind as BookKindName]) : [kind as Interaction['kind']];
    return secret.some((id) => kinds.some((k) => book.rules.find((r) => r.id === id)?.kinds.has(k)));
  };
  let clock = 0;
  const { pipeline, close } = await buildGuard({
    policy: opts.prepared,
    store: ':memory:',
    // Replay decisions are not audited: the report is the record. The clock follows the recorded timestamps.
    settings: { ...(opts.options ?? {}), audit: false },
    now: () => clock,
  });
  const report: ReplayReport = {
    audit: opts.source,
    policy: { name: book.book.name, version: book.book.version, hash: book.hash },
    recordedPolicies: [],
    rows: 0,
    replayed: 0,
    unchanged: 0,
    rulesChanged: 0,
    truncated: 0,
    changed: [],
    masked: [],
    secretRules: secret,
    notReplayable: { count: 0, byReason: {} },
  };
  const policies = new Set<string>();
  try {
    for await (const item of items) {
      report.rows++;
      const { row } = item;
      if ('reason' in item) {
        report.notReplayable.count++;
        report.notReplayable.byReason[item.reason] = (report.notReplayable.byReason[item.reason] ?? 0) + 1;
        continue;
      }
      if (row.policyHash) policies.add(row.policyHash);
      clock = row.ts;
      const d = await pipeline.check(item.interaction);
      report.replayed++;
      if (item.truncated) report.truncated++;
      const entry: ReplayEntry = {
        id: row.id,
        auditId: row.auditId,
        ts: row.ts,
        session: row.session,
        agent: row.agent,
        kind: row.kind,
        target: target(row),
        before: { decision: row.decision, rules: row.rules },
        after: { decision: d.decision, rules: d.rules, rationale: d.rationale },
        truncated: item.truncated,
      };
      const verdictChanged = d.decision !== row.decision;
      if (item.masked && secretByKind(row.kind)) {
        report.masked.push({ ...entry, verdictChanged });
      } else if (verdictChanged) {
        report.changed.push(entry);
      } else {
        report.unchanged++;
        if (!sameSet(d.rules, row.rules)) report.rulesChanged++;
      }
    }
  } finally {
    await close();
  }
  report.recordedPolicies = [...policies];
  return report;
}
