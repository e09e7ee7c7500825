import { canonicalJson, sha256Hex } from '../../../src/core/canonical.js';
import { PREVIEW_CAP } from '../../../src/store/audit-columns.js';
import { payloadPreview, recordInteraction, recurringPrefix, ROW_NAME_CAP, rowName } from '../../../src/store/audit-interaction.js';
import type { AuditFields, BuiltAuditRow } from '../../../src/store/audit-row.js';
import { AuditEntrySchema, quickAuditEntry, type AuditEntry, type AuditRow, type ParsedAuditEntry } from '../../../src/store/audit-schema.js';
import { maskPrefix, maskSecretKeys, schemaCredentialKeysOf } from '../../../src/store/redact.js';

/**
 * `auditFields` as it was before the columns a payload and its interaction decide alone were split out
 * (`payloadColumns`, computed ahead in the worker pool's spare thread): src/store/audit-row.ts at 46f111c, the row's
 * columns and record from the entry in one pass. Without the rows built elsewhere (`useBuiltRow`).
 */
export function formerAuditFields(entry: AuditEntry): BuiltAuditRow {
  const e = quickAuditEntry(entry) ?? parseEntry(entry);
  const payload = e.payload === undefined ? undefined : canonicalJson(e.payload);
  const keyed = maskSecretKeys(e.payload, schemaCredentialKeysOf(e.interaction));
  const text = payload === undefined ? undefined : typeof e.payload === 'string' ? e.payload : keyed === e.payload ? payload : canonicalJson(keyed);
  const fields: AuditFields = {
    ts: e.ts ?? Date.now(),
    agent: capName(e.agent),
    session: capName(e.session),
    kind: e.kind,
    server: e.server === undefined ? null : rowName(e.server),
    tool: e.tool === undefined ? null : rowName(e.tool),
    uri: e.uri === undefined ? null : maskPrefix(e.uri, CAP.uri),
    recipient: e.recipient === undefined ? null : rowName(e.recipient),
    digest: payload === undefined ? null : sha256Hex(payload),
    preview: text === undefined ? null : payloadPreview(text, keyed, CAP.preview),
    size: payload === undefined ? null : Buffer.byteLength(payload),
    decision: e.decision,
    rules: JSON.stringify(e.rules.slice(0, CAP.list).map(capName)),
    flagged: JSON.stringify(e.flagged.slice(0, CAP.list).map(capName)),
    witness: capWitness(e.witness),
    threat: e.threatLevel ?? null,
    rationale: recurringPrefix(e.rationale, CAP.rationale),
    elapsed_ms: e.elapsedMs ?? null,
    policy_hash: e.policyHash === undefined ? null : capName(e.policyHash),
    source: capName(e.source),
    llm: e.llm === undefined ? null : JSON.stringify(e.llm),
  };
  return { fields, rec: e.interaction === undefined ? undefined : recordInteraction(e.interaction) };
}

const CAP = { preview: PREVIEW_CAP, rationale: 2000, uri: 1000, name: ROW_NAME_CAP, witness: 8000, list: 100 } as const;

function parseEntry(entry: AuditEntry): ParsedAuditEntry {
  return AuditEntrySchema.parse(entry);
}

function capName(s: string): string {
  return s.length > CAP.name ? `${s.slice(0, CAP.name)}…` : s;
}

function capWitness(witness: AuditRow['witness']): string {
  const kept: AuditRow['witness'] = [];
  let size = 2;
  for (const w of witness.slice(0, CAP.list)) {
    const s = JSON.stringify(w).length + 1;
    if (size + s > CAP.witness) break;
    kept.push(w);
    size += s;
  }
  return JSON.stringify(kept);
}
