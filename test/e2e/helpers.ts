/**
 * Helpers of the end-to-end suite. Processes are started with the shared proxy harness (test/support) and the
 * demo kit (src/cli/demos/kit.ts); this file only reads guard verdicts out of results and tampers with a store.
 */
import { openDatabase } from '../../src/store/sqlite.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DECISION_META_KEY } from '../../src/proxy/denial.js';

/** The body guard_check_message always returns. */
export interface MessageVerdict {
  decision: 'allow' | 'deny';
  rationale: string;
  violated_rules: string[];
  witness: Array<{ rule: string; predicates: Record<string, string> }>;
  threat_level: number;
}

/** Parses a guard_check_message result (its first text block is the JSON verdict). */
export function messageVerdict(r: unknown): MessageVerdict & { isError: boolean } {
  const res = r as CallToolResult;
  const block = res.content[0];
  if (block?.type !== 'text') throw new Error(`not a guard_check_message result: ${JSON.stringify(r)}`);
  return { ...(JSON.parse(block.text) as MessageVerdict), isError: res.isError === true };
}

/** The machine-readable decision in a tools/call result's `_meta` (present on denials and rewrites). */
export function metaDecision(r: unknown): { decision: string; rules: string[]; rationale: string; threatLevel?: number; witness: MessageVerdict['witness'] } | undefined {
  return (r as CallToolResult)._meta?.[DECISION_META_KEY] as never;
}

/** The first text block of a tool result. */
export function text(r: unknown): string {
  const c = (r as CallToolResult).content?.[0];
  return c && c.type === 'text' ? c.text : '';
}

/** Every predicate name in a decision's witness. */
export function witnessPredicates(w: MessageVerdict['witness'] | undefined): string[] {
  return (w ?? []).flatMap((x) => Object.keys(x.predicates));
}

/**
 * Edits the rationale of audit row `id` behind the store's back: drops the append-only trigger first, as an
 * attacker with file access could. Returns the row's old rationale.
 */
export function tamperAuditRow(storeFile: string, id: number, rationale: string): string {
  const db = openDatabase(storeFile);
  try {
    const row = db.prepare('SELECT rationale FROM audit WHERE id = ?').get(id) as { rationale: string } | undefined;
    if (!row) throw new Error(`no audit row ${id}`);
    db.exec('DROP TRIGGER IF EXISTS audit_no_update');
    db.prepare('UPDATE audit SET rationale = ? WHERE id = ?').run(rationale, id);
    return row.rationale;
  } finally {
    db.close();
  }
}

/** How many audit rows the store holds. */
export function auditCount(storeFile: string): number {
  const db = openDatabase(storeFile, { readonly: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM audit').get() as { n: number }).n;
  } finally {
    db.close();
  }
}
