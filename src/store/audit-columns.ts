import { canonicalJson } from '../core/canonical.js';
import type { RawAuditRow } from './audit-schema.js';

/**
 * The audit table's columns, written once: the columns a row is hashed and read with (`AUDIT_COLUMNS`), how they are
 * stored (`STORED_COLUMNS`), and the SQL both engines insert and select them with.
 *
 * A row is stored slimmer than it is hashed and read (issue #30), without changing what is hashed:
 * - `policy_hash` (the same on every row of a book) is stored once in `audit_book` and named by its id (`book`);
 *   the column itself stays for rows written before, and is null on new ones.
 * - `preview` is stored as null when the recorded interaction's body gives the same text (`previewOfBody`); a row
 *   whose `digest` is set and whose `preview` is null reads its preview from its body. Rows written before always
 *   had a preview with a digest, so the rule names only rows written this way.
 * - The recorded interaction's body (`audit_body`, stored once per content) is stored without the session the row
 *   holds (`storedBody`), so the same read recorded in many sessions is one body; `recordedBody` puts it back.
 * Every read (`audit show`, `tail`, export, the live view, `audit verify`) goes through `auditSelect` and
 * `readStored`, so the row read and hashed is the row as it was written: an edited book, body or `book` id breaks
 * that row's hash as an edited column would.
 */

/** The columns of a row as read and hashed, in the order the INSERT names them (the bench reads their sizes). */
export const AUDIT_COLUMNS = [
  'id', 'ts', 'agent', 'session', 'kind', 'server', 'tool', 'uri', 'recipient', 'digest', 'preview', 'size', 'decision',
  'rules', 'flagged', 'witness', 'threat', 'rationale', 'elapsed_ms', 'policy_hash', 'source', 'llm', 'prev_hash', 'hash', 'mac', 'ref',
] as const satisfies readonly (keyof RawAuditRow)[];

/** The columns as stored: the read columns and the id of the row's book in `audit_book`. */
export const STORED_COLUMNS = [...AUDIT_COLUMNS, 'book'] as const;

/** The longest preview kept (characters; a longer text is cut and ends with '…'). */
export const PREVIEW_CAP = 240;

/** Bodies longer than this keep their preview in the row: deriving it would parse the whole body on every read. */
const DERIVE_MAX_BODY = 8192;

/** The expression each read column is selected with (`a`: audit, `k`: audit_book). */
const readExpr = (c: (typeof AUDIT_COLUMNS)[number]): string => (c === 'policy_hash' ? 'coalesce(a.policy_hash, k.hash) AS policy_hash' : `a.${c}`);

/**
 * `SELECT <the read columns> FROM audit a …` followed by `rest` (a WHERE / ORDER BY / LIMIT naming columns as
 * `a.<column>`, with the engine's own placeholders): the one SELECT of audit rows, on both engines. Its rows go
 * through `readStored`. `preview_body` is the recorded body of a row whose preview is read from it, else null.
 */
export function auditSelect(rest: string): string {
  return `SELECT ${AUDIT_COLUMNS.map(readExpr).join(', ')},
    CASE WHEN a.preview IS NULL AND a.digest IS NOT NULL THEN coalesce(i.body, b.body) END AS preview_body
    FROM audit a LEFT JOIN audit_book k ON k.id = a.book LEFT JOIN audit_interaction i ON i.id = a.id LEFT JOIN audit_body b ON b.digest = i.body_digest
    ${rest}`;
}

/** `INSERT INTO audit (<stored columns>) VALUES (…)`: `value(column, n)` gives the SQL of the n-th (0-based) value. */
export function auditInsert(value: (column: (typeof STORED_COLUMNS)[number], n: number) => string): string {
  return `INSERT INTO audit (${STORED_COLUMNS.join(', ')}) VALUES (${STORED_COLUMNS.map(value).join(', ')})`;
}

/**
 * A row's values in `STORED_COLUMNS` order: the policy hash replaced by `book` when the row has one (its id in
 * `audit_book`; on PostgreSQL the policy hash itself, which the INSERT resolves to the id), the preview left out
 * when the stored body (`storedBody`) gives the same one.
 */
export function storedValues(row: RawAuditRow, body: string | null, book: number | string | null): unknown[] {
  const preview = row.preview !== null && row.digest !== null && body !== null && previewOfBody(body) === row.preview ? null : row.preview;
  const values: unknown[] = [];
  for (const c of AUDIT_COLUMNS) {
    values.push(c === 'preview' ? preview : c === 'policy_hash' && book !== null ? null : (row[c] ?? null));
  }
  values.push(book);
  return values;
}

/** A row read with `auditSelect`, as it was written: the preview read from its body where the row left it out. */
export function readStored(raw: unknown): unknown {
  const r = raw as Record<string, unknown>;
  const { preview_body: body, ...row } = r;
  if (typeof body === 'string') row.preview = previewOfBody(body) ?? null;
  return row;
}

/**
 * The preview a recorded body gives: the payload the audit entry takes from an interaction (its arguments or
 * content, with its `_meta` beside them; `auditEntryFor`) rebuilt from the body, as canonical JSON (a string
 * payload as it is), cut at `PREVIEW_CAP`. A frozen function of the stored body — no masking here (the body's
 * strings were masked when recorded, and a future masker must not change what old rows hash to); a row keeps its
 * preview in the column whenever this does not give exactly the text it was written with (`storedValues`).
 */
export function previewOfBody(body: string): string | undefined {
  if (body.length > DERIVE_MAX_BODY) return undefined;
  let i: unknown;
  try {
    i = JSON.parse(body);
  } catch {
    return undefined;
  }
  if (typeof i !== 'object' || i === null || Array.isArray(i)) return undefined;
  const { arguments: args, content, meta } = i as Record<string, unknown>;
  const payload = meta === undefined ? (args ?? content) : { ...((args ?? { content }) as object), _meta: meta };
  if (payload === undefined || payload === null) return undefined;
  const text = typeof payload === 'string' ? payload : canonicalJson(payload);
  return text.length > PREVIEW_CAP ? `${text.slice(0, PREVIEW_CAP)}…` : text;
}

/** The SQL of a row's recorded interaction with the row's session (`recordedBody` needs it); `param`: the row id's. */
export function interactionSelect(param: string): string {
  return `SELECT coalesce(i.body, b.body) AS body, i.masked, i.truncated, a.session FROM audit_interaction i
    JOIN audit a ON a.id = i.id LEFT JOIN audit_body b ON b.digest = i.body_digest WHERE i.id = ${param}`;
}

/**
 * A recorded body as stored: without its `session` member when it is the row's (the body is then the same for every
 * session that recorded the same interaction, and `audit_body` keeps it once). Bodies are written by
 * `recordInteraction` with `kind`, `agent`, `session` first; any other body is stored as it is.
 */
export function storedBody(body: string, session: string): string {
  const at = afterAgent(body);
  if (at < 0) return body;
  const member = `,"session":${JSON.stringify(session)}`;
  const next = body[at + member.length];
  return body.startsWith(member, at) && (next === ',' || next === '}') ? body.slice(0, at) + body.slice(at + member.length) : body;
}

/** The body as recorded, from its stored form and the row's session (a body that kept its session is returned as is). */
export function recordedBody(stored: string, session: string): string {
  const at = afterAgent(stored);
  if (at < 0 || stored.startsWith(',"session":', at)) return stored;
  return `${stored.slice(0, at)},"session":${JSON.stringify(session)}${stored.slice(at)}`;
}

/** The index just after `{"kind":<string>,"agent":<string>` at the start of a body, or -1. */
function afterAgent(body: string): number {
  if (!body.startsWith('{"kind":"')) return -1;
  const kindEnd = endOfString(body, 8);
  if (kindEnd < 0 || !body.startsWith(',"agent":"', kindEnd)) return -1;
  return endOfString(body, kindEnd + 9);
}

/** The index after the JSON string literal that opens at `start` (a '"'), or -1 when it does not close. */
function endOfString(s: string, start: number): number {
  for (let i = start + 1; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return -1;
}
