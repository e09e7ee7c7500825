import { z } from 'zod';
import { NOT_REPLAYABLE_TEXT, type NotReplayableReason } from './load.js';

/**
 * The result of `quadguard replay`, as data (`--json`) and as text. Zod schemas first, types inferred from them.
 */

/** One side of a comparison: a verdict and the rules behind it. */
export const VerdictSchema = z.object({
  decision: z.enum(['allow', 'deny']),
  rules: z.array(z.string()),
});

/** A recorded decision set against the replayed one. */
export const ReplayEntrySchema = z.object({
  id: z.number().int(),
  auditId: z.string(),
  ts: z.number().int(),
  session: z.string(),
  agent: z.string(),
  kind: z.string(),
  /** `server__tool`, the URI, or `→ recipient`. */
  target: z.string(),
  before: VerdictSchema,
  after: VerdictSchema.extend({ rationale: z.string() }),
  /** The recorded interaction had long strings cut: the replay decided on a prefix. */
  truncated: z.boolean(),
});
export type ReplayEntry = z.infer<typeof ReplayEntrySchema>;

export const ReplayReportSchema = z.object({
  audit: z.string(),
  policy: z.object({ name: z.string(), version: z.string(), hash: z.string() }),
  /** Distinct policy hashes the recorded rows were decided under. */
  recordedPolicies: z.array(z.string()),
  /** Every row read. */
  rows: z.number().int(),
  /** Rows re-decided (unchanged + changed + masked). */
  replayed: z.number().int(),
  unchanged: z.number().int(),
  /** Of the unchanged: same verdict, different rules. */
  rulesChanged: z.number().int(),
  truncated: z.number().int(),
  /** allow→deny and deny→allow. */
  changed: z.array(ReplayEntrySchema),
  /** Rows whose recorded interaction had secrets masked: not re-decidable for the book's secret rules. */
  masked: z.array(ReplayEntrySchema.extend({ verdictChanged: z.boolean() })),
  secretRules: z.array(z.string()),
  notReplayable: z.object({
    count: z.number().int(),
    byReason: z.record(z.string(), z.number().int()),
  }),
});
export type ReplayReport = z.infer<typeof ReplayReportSchema>;

function line(e: ReplayEntry): string {
  const rules = (r: string[]) => (r.length > 0 ? r.join(',') : '-');
  const cut = e.truncated ? ' (truncated)' : '';
  return `  ${e.auditId}  ${e.kind.padEnd(13)} ${e.agent}  ${e.target}  ${e.before.decision}[${rules(e.before.rules)}] → ${e.after.decision}[${rules(e.after.rules)}]${cut}`;
}

/** The report as text: counts first, then each changed row with the rules before and after. */
export function renderReplayReport(r: ReplayReport): string {
  const out: string[] = [];
  const a2d = r.changed.filter((e) => e.after.decision === 'deny');
  const d2a = r.changed.filter((e) => e.after.decision === 'allow');
  out.push(`replay of ${r.audit} under ${r.policy.name} ${r.policy.version} (${r.policy.hash.slice(0, 12)}); recorded under ${r.recordedPolicies.map((h) => h.slice(0, 12)).join(', ') || '-'}`);
  out.push(`rows ${r.rows}: replayed ${r.replayed}, unchanged ${r.unchanged} (${r.rulesChanged} with other rules), changed ${r.changed.length} (allow→deny ${a2d.length}, deny→allow ${d2a.length}), masked ${r.masked.length}, not replayable ${r.notReplayable.count}`);
  if (r.truncated > 0) out.push(`${r.truncated} replayed rows had long strings cut when recorded (decided on a prefix)`);
  if (a2d.length > 0) out.push('allow → deny:', ...a2d.map(line));
  if (d2a.length > 0) out.push('deny → allow:', ...d2a.map(line));
  if (r.masked.length > 0) {
    out.push(`masked — not re-decidable for secret rules (${r.secretRules.join(', ') || 'none'}):`);
    for (const e of r.masked) out.push(`${line(e)}${e.verdictChanged ? '  (verdict differs)' : ''}`);
  }
  for (const [reason, n] of Object.entries(r.notReplayable.byReason)) out.push(`not replayable: ${n} × ${NOT_REPLAYABLE_TEXT[reason as NotReplayableReason] ?? reason}`);
  return `${out.join('\n')}\n`;
}
