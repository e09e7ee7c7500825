import { z } from 'zod';
import { StoreError } from '../core/errors.js';
import { canonicalJson, sha256Hex } from '../core/canonical.js';
import {
  AuditEntrySchema,
  AuditRowSchema,
  quickAuditEntry,
  RawAuditRowSchema,
  type AuditEntry,
  type AuditRow,
  type ParsedAuditEntry,
  type RawAuditRow,
} from './audit-schema.js';
import { payloadPreview, recordInteraction, recurringPrefix, ROW_NAME_CAP, rowName, type InteractionRecord } from './audit-interaction.js';
import { maskPrefix, maskSecretKeys, schemaCredentialKeysOf } from './redact.js';
import { PREVIEW_CAP } from './audit-columns.js';
import type { Interaction } from '../core/types.js';

export { AUDIT_COLUMNS } from './audit-columns.js';

/**
 * An audit row as both engines build, hash and store it: the columns of a new row from an entry (`auditFields`),
 * the chain hash (`rowHash`) and the parser of a row read back (the columns and how they are stored:
 * audit-columns.ts).
 */

/** Size caps: a row stays small whatever passes through the proxy. */
const CAP = { preview: PREVIEW_CAP, rationale: 2000, uri: 1000, name: ROW_NAME_CAP, witness: 8000, list: 100 } as const;

/** The columns of a new row that the entry decides: all but the id, the chain hashes and the MAC. */
export type AuditFields = Omit<RawAuditRow, 'id' | 'prev_hash' | 'hash' | 'mac' | 'ref'> & { ref?: string | null };

/** What `auditFields` builds for an entry: the row's columns and its interaction record. */
export interface BuiltAuditRow {
  fields: AuditFields;
  rec: InteractionRecord | undefined;
}

/**
 * Rows built for an entry elsewhere, by this same function (the worker pool builds the row of a long interaction off
 * the event loop: src/guard/long-texts.ts), keyed by the entry object: `auditFields` of that very entry answers them.
 */
const builtElsewhere = new WeakMap<object, BuiltAuditRow>();

/** Lets `auditFields(entry)` answer `built`, which `auditFields` computed for an equal entry (in a worker thread). */
export function useBuiltRow(entry: AuditEntry, built: BuiltAuditRow): AuditEntry {
  builtElsewhere.set(entry, built);
  return entry;
}

/**
 * What a row takes from its entry's payload and interaction alone, whatever the decision: the payload's digest, size
 * and masked preview, and the interaction's masked record. The part of a long interaction's row that grows with it.
 */
export interface PayloadColumns {
  digest: string | null;
  preview: string | null;
  size: number | null;
  rec: InteractionRecord | undefined;
}

export function payloadColumns(payload: unknown, interaction: Interaction | undefined): PayloadColumns {
  const json = payload === undefined ? undefined : canonicalJson(payload);
  // The preview is of the payload with values in credential fields replaced (the digest is of the payload).
  const keyed = maskSecretKeys(payload, schemaCredentialKeysOf(interaction));
  const text = json === undefined ? undefined : typeof payload === 'string' ? payload : keyed === payload ? json : canonicalJson(keyed);
  return {
    digest: json === undefined ? null : sha256Hex(json),
    preview: text === undefined ? null : payloadPreview(text, keyed, CAP.preview),
    size: json === undefined ? null : Buffer.byteLength(json),
    rec: interaction === undefined ? undefined : recordInteraction(interaction),
  };
}

/**
 * The columns of a new row (all but id, the chain hashes and the MAC), and its interaction record: shared by both
 * engines. `ahead`: `payloadColumns` of this entry's very payload and interaction, computed before (in the worker
 * pool's spare thread, while the decision was made: src/guard/long-texts.ts).
 */
export function auditFields(entry: AuditEntry, ahead?: PayloadColumns): BuiltAuditRow {
  const built = builtElsewhere.get(entry);
  if (built !== undefined) return built;
  const e = quickAuditEntry(entry) ?? parseEntry(entry);
  const p = ahead ?? payloadColumns(e.payload, e.interaction);
  const fields = {
    ts: e.ts ?? Date.now(),
    agent: capName(e.agent),
    session: capName(e.session),
    kind: e.kind,
    // Names a client chooses (a tools/call or prompts/get name, the server prefix split from it, a recipient) are
    // masked as any other text the store keeps; the agent and session come from the proxy and its config.
    server: e.server === undefined ? null : rowName(e.server),
    tool: e.tool === undefined ? null : rowName(e.tool),
    uri: e.uri === undefined ? null : maskPrefix(e.uri, CAP.uri),
    recipient: e.recipient === undefined ? null : rowName(e.recipient),
    digest: p.digest,
    preview: p.preview,
    size: p.size,
    decision: e.decision,
    rules: JSON.stringify(e.rules.slice(0, CAP.list).map(capName)),
    flagged: JSON.stringify(e.flagged.slice(0, CAP.list).map(capName)),
    witness: capWitness(e.witness),
    threat: e.threatLevel ?? null,
    // The guard's sentences recur on every row of their decision ("Allowed: no rule of the policy is violated.").
    rationale: recurringPrefix(e.rationale, CAP.rationale),
    elapsed_ms: e.elapsedMs ?? null,
    policy_hash: e.policyHash === undefined ? null : capName(e.policyHash),
    source: capName(e.source),
    llm: e.llm === undefined ? null : JSON.stringify(e.llm),
  };
  return { fields, rec: p.rec };
}

function parseEntry(entry: AuditEntry): ParsedAuditEntry {
  const parsed = AuditEntrySchema.safeParse(entry);
  if (!parsed.success) throw new StoreError('store_invalid_entry', `audit entry is invalid: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/**
 * `{ ...fields, ref }`, the columns a journal line holds, written key by key: on Node 20's V8 a key an object literal
 * adds after a spread goes through the runtime (the linked row's spread below cost ~7 µs in a loop, ~0.1 µs written
 * out), and this runs for every row. The same keys in the same order as the spread of the columns `auditFields` makes,
 * holding the same values (test/store/audit-shortcuts.test.ts against the spread).
 */
export function withRef(f: AuditFields, ref: string): AuditFields & { ref: string } {
  return {
    ts: f.ts, agent: f.agent, session: f.session, kind: f.kind, server: f.server, tool: f.tool, uri: f.uri, recipient: f.recipient,
    digest: f.digest, preview: f.preview, size: f.size, decision: f.decision, rules: f.rules, flagged: f.flagged, witness: f.witness,
    threat: f.threat, rationale: f.rationale, elapsed_ms: f.elapsed_ms, policy_hash: f.policy_hash, source: f.source, llm: f.llm, ref,
  };
}

/**
 * The row of `fields` linked as `id` after `prev_hash`, with its chain hash and MAC, written key by key as `withRef`
 * is (it was `{ ...fields, id, llm, ref, prev_hash, hash, mac }`): every column, `llm` and `ref` null when unset. Its
 * readers take the columns by name (`storedValues`, the head), not in order.
 */
export function linkedRow(f: AuditFields, id: number, prev_hash: string, hash: string, mac: string | null): RawAuditRow {
  return {
    ts: f.ts, agent: f.agent, session: f.session, kind: f.kind, server: f.server, tool: f.tool, uri: f.uri, recipient: f.recipient,
    digest: f.digest, preview: f.preview, size: f.size, decision: f.decision, rules: f.rules, flagged: f.flagged, witness: f.witness,
    threat: f.threat, rationale: f.rationale, elapsed_ms: f.elapsed_ms, policy_hash: f.policy_hash, source: f.source,
    llm: f.llm ?? null, ref: f.ref ?? null, id, prev_hash, hash, mac,
  };
}

/** Columns added after the chain began (migration 4 on). */
const LATER_COLUMNS = new Set<string>(['llm', 'ref']);

/** Every hashed column, sorted: the key order of the canonical row JSON. The MAC covers the hash, not the reverse. */
const HASHED_COLUMNS = Object.keys(RawAuditRowSchema.shape).filter((k) => k !== 'hash' && k !== 'mac').sort() as (keyof Omit<RawAuditRow, 'hash' | 'mac'>)[];

/**
 * The chain hash of a row: sha256 of its `prev_hash` followed by the canonical JSON of its columns (all but
 * `hash`, keys sorted). Columns are strings, numbers or null, so native `JSON.stringify` over an object built in
 * sorted key order is exactly `canonicalJson(row)`, at a fraction of the cost (this runs on every append).
 */
export function rowHash(row: Omit<RawAuditRow, 'hash' | 'llm' | 'mac' | 'ref'> & { llm?: string | null; mac?: string | null; ref?: string | null }): string {
  const sorted: Record<string, unknown> = {};
  for (const k of HASHED_COLUMNS) {
    // Columns added by later migrations join the hash only when set, so rows written before them still verify.
    if (LATER_COLUMNS.has(k) && (row[k] ?? null) === null) continue;
    sorted[k] = row[k] ?? null;
  }
  return sha256Hex(row.prev_hash + JSON.stringify(sorted));
}

/**
 * A row's canonical JSON without its two link columns, which it gets only when committed (`id`, `prev_hash`): the
 * members before `id`, between `id` and `prev_hash`, and after `prev_hash`, each without braces. The journal line's
 * MAC (the row linked as id 0 after ''), the journal line itself and the commit's chain hash are made from this one
 * serialisation of the columns: `linkedHash(chainText(fields), id, prev)` is `rowHash` of the linked row.
 */
export interface ChainText {
  readonly beforeId: string;
  readonly beforePrev: string;
  readonly rest: string;
}

const ID_AT = HASHED_COLUMNS.indexOf('id');
const PREV_AT = HASHED_COLUMNS.indexOf('prev_hash');
const BEFORE_ID = HASHED_COLUMNS.slice(0, ID_AT);
const BEFORE_PREV = HASHED_COLUMNS.slice(ID_AT + 1, PREV_AT);
const REST = HASHED_COLUMNS.slice(PREV_AT + 1);
/** Each column's JSON key with its colon. */
const KEY_TEXT = new Map<string, string>(HASHED_COLUMNS.map((k) => [k, `${JSON.stringify(k)}:`]));

/** The members of the canonical JSON for `keys`, without braces, as `rowHash` writes them. */
function members(row: Record<string, unknown>, keys: readonly string[]): string {
  let out = '';
  for (const k of keys) {
    const v = row[k] ?? null;
    if (v === null && LATER_COLUMNS.has(k)) continue;
    out += `${out === '' ? '' : ','}${KEY_TEXT.get(k)!}${JSON.stringify(v)}`;
  }
  return out;
}

/** The chain text of a row's columns before its link (`ref` and `llm` left out when null, as `rowHash` does). */
export function chainText(fields: AuditFields): ChainText {
  const row = fields as unknown as Record<string, unknown>;
  return { beforeId: members(row, BEFORE_ID), beforePrev: members(row, BEFORE_PREV), rest: members(row, REST) };
}

/**
 * `rowHash` of the row with these columns, linked as row `id` after `prevHash`: the members in their order, an empty
 * piece left out with its comma, written as one text (no list of pieces to filter and join: this runs twice a row).
 */
export function linkedHash(t: ChainText, id: number, prevHash: string): string {
  const before = t.beforeId === '' ? '' : `${t.beforeId},`;
  const between = t.beforePrev === '' ? '' : `,${t.beforePrev}`;
  const after = t.rest === '' ? '' : `,${t.rest}`;
  return sha256Hex(`${prevHash}{${before}"id":${JSON.stringify(id)}${between},"prev_hash":${JSON.stringify(prevHash)}${after}}`);
}

/** The JSON object of the columns without the link columns (keys sorted; `ref` and `llm` left out when null). */
export function columnsJson(t: ChainText): string {
  let out = t.beforeId;
  if (t.beforePrev !== '') out = out === '' ? t.beforePrev : `${out},${t.beforePrev}`;
  if (t.rest !== '') out = out === '' ? t.rest : `${out},${t.rest}`;
  return `{${out}}`;
}

export function parseRow(raw: unknown): AuditRow {
  const r = AuditRowSchema.safeParse(raw);
  if (!r.success) {
    const id = (raw as { id?: unknown } | undefined)?.id;
    throw new StoreError('store_corrupt_row', `audit row ${String(id)} is malformed: ${z.prettifyError(r.error)}; run \`quadguard audit verify\``);
  }
  return r.data;
}

function capName(s: string): string {
  return s.length > CAP.name ? `${s.slice(0, CAP.name)}…` : s;
}

/** Witnesses hold predicate names and truth values only; still capped, dropping whole witnesses past the cap. */
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
