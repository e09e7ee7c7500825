import { AnyInteractionSchema, type Interaction } from '../core/types.js';
import type { AuditRow } from '../store/audit-schema.js';
import type { GuardStore } from '../store/engine.js';

/**
 * Reading a recorded trace back from the audit log: each row with the interaction the guard saw (as recorded:
 * masked and capped), or the reason it cannot be replayed.
 */

/** Why a row cannot be re-decided at all. */
export type NotReplayableReason = 'admin' | 'no_interaction' | 'too_large' | 'unreadable';

/** One recorded decision, ready to replay or explained as not replayable. */
export type RecordedItem =
  | { row: AuditRow; interaction: Interaction; masked: boolean; truncated: boolean }
  | { row: AuditRow; reason: NotReplayableReason };

/** Human wording of each reason, for the report. */
export const NOT_REPLAYABLE_TEXT: Record<NotReplayableReason, string> = {
  admin: 'admin row (release, quarantine, pin or approval), not a guard decision',
  no_interaction: 'no recorded interaction (written before the store kept them, or by a non-guard writer)',
  too_large: 'interaction too large to record even with cut strings',
  unreadable: 'recorded interaction does not parse',
};

/**
 * Every row of the store's audit log from `fromId`, in id order, with its recorded interaction. Profiles are not
 * recorded (they belong to the agent, in the config): `profiles` supplies them by agent name.
 */
export async function* readRecorded(
  store: GuardStore,
  opts: { fromId?: number; profiles?: Record<string, Record<string, unknown>> } = {},
): AsyncGenerator<RecordedItem> {
  // Either engine: a PostgreSQL store holds every replica's decisions in one chain, so a replay covers them all.
  for await (const row of store.audit.iterate(opts.fromId ?? 1)) {
    if (row.kind === 'admin') {
      yield { row, reason: 'admin' };
      continue;
    }
    const rec = await store.audit.interaction(row.id);
    if (rec === undefined) {
      yield { row, reason: 'no_interaction' };
      continue;
    }
    if (rec.body === null) {
      yield { row, reason: 'too_large' };
      continue;
    }
    let parsed;
    try {
      // Rows recorded before the kinds union (`resource_read` with a `phase`) are read as their new kinds.
      parsed = AnyInteractionSchema.safeParse({ ...(JSON.parse(rec.body) as object), profile: opts.profiles?.[row.agent] ?? {} });
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) {
      yield { row, reason: 'unreadable' };
      continue;
    }
    yield { row, interaction: parsed.data, masked: rec.masked, truncated: rec.truncated };
  }
}
