import { createHash, createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision, Interaction } from '../../src/core/types.js';
import { auditFields, AuditEntrySchema, auditEntryFor, quickAuditEntry, type AuditEntry } from '../../src/store/audit.js';
import { bodyDigest, MaskMemo, recordInteraction } from '../../src/store/audit-interaction.js';
import { maskSecretKeys, maskSecrets } from '../../src/store/redact.js';
import { canonicalJson, sha256Hex } from '../../src/core/canonical.js';
import { rowMac } from '../../src/store/audit-key.js';
import { chainText, columnsJson, linkedHash, linkedRow, rowHash, withRef, type AuditFields, type ChainText } from '../../src/store/audit-row.js';
import { storedValues } from '../../src/store/audit-columns.js';
import { GENESIS_HASH } from '../../src/store/audit-chain.js';
import { AuditJournal, chainTextOf, journalLine, journalLineOk, JournalRowSchema } from '../../src/store/audit-journal.js';
import { readFileSync } from 'node:fs';
import { tempDir } from './helpers.js';

// The short cuts of the audit append (issue 16) against the full computation: the masker's memo of keys and name
// fields, and the validation of plain entries without zod. Each property fails if its short cut answers otherwise.

// Assembled at run time so that no scanner mistakes this file for a leak.
const j = (...parts: string[]): string => parts.join('');
const SECRETS = [
  j('AKIA', 'Z7QW4K2M9XNB3VTL'),
  j('ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'),
  j('sk-proj-', 'Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z'),
  j('Authorization: Bearer ', 'x9F2kQ7mZ1pL4vB8nW3c'),
  'DB_PASSWORD=hunter22',
  'postgres://admin:s3cretPw@db.example.com/app',
  'Zx8Kq2Lm9Wv4Rt7Yp3Nb6Hc1',
  'stdio-5c121a59-e7ce-48f9-848d-03b2a3995aa6',
  j('-----BEGIN RSA ', 'PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----'),
];

/** Strings of every sort: names, secrets, Unicode, around the memo's length bound (200) and past it. */
const anyString = fc.oneof(
  fc.constantFrom('path', 'type', 'text', 'kind', 'agent', 'session', 'tool_call', 'read_file', 'local', 'ws', 'password', 'api_key', '', 'é', '💥', '\u212a'),
  fc.constantFrom(...SECRETS),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  fc.stringMatching(/^[A-Za-z0-9+_=/-]{15,60}$/),
  fc.tuple(fc.string({ maxLength: 5 }), fc.constantFrom(...SECRETS), fc.integer({ min: 150, max: 260 })).map(([a, s, n]) => `${a}${s}${'x'.repeat(n)}`.slice(0, n)),
  fc.integer({ min: 195, max: 205 }).map((n) => `${SECRETS[n % SECRETS.length]!} ${'ab1'.repeat(100)}`.slice(0, n)),
);

const json: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    anyString,
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(anyString, tie('v'), { maxKeys: 4 }),
  ),
})).v;

const interaction: fc.Arbitrary<Interaction> = fc.oneof(
  fc.record({ kind: fc.constant('tool_call' as const), agent: anyString, session: anyString, profile: fc.constant({}), server: anyString, tool: anyString, arguments: fc.dictionary(anyString, json, { maxKeys: 5 }) }),
  fc.record({
    kind: fc.constant('tool_result' as const),
    agent: anyString,
    session: anyString,
    profile: fc.constant({}),
    server: anyString,
    tool: anyString,
    content: fc.oneof(anyString, fc.array(fc.record({ type: fc.constant('text'), text: anyString }), { maxLength: 3 })),
  }),
  fc.record({ kind: fc.constant('message' as const), agent: anyString, session: anyString, profile: fc.constant({}), sender: anyString, recipient: anyString, content: anyString }),
  fc.record({ kind: fc.constant('prompt_request' as const), agent: anyString, session: anyString, profile: fc.constant({}), prompt: anyString, arguments: fc.dictionary(anyString, json, { maxKeys: 3 }) }),
) as fc.Arbitrary<Interaction>;

describe('the masker memo of keys and name fields', () => {
  it('answers maskSecrets for every string, on a miss and on a hit, also while evicting', () => {
    const big = new MaskMemo();
    const tiny = new MaskMemo(3);
    fc.assert(
      fc.property(fc.array(anyString.filter((s) => s.length <= 200), { maxLength: 8 }), (strings) => {
        for (const memo of [big, tiny]) for (const s of [...strings, ...strings]) expect(memo.mask(s)).toBe(maskSecrets(s));
        expect(tiny.size).toBeLessThanOrEqual(3);
      }),
      { numRuns: 1500 },
    );
  });

  it('records every interaction exactly as masking each string afresh (keys, name fields, values, caps)', () => {
    const memo = new MaskMemo(16);
    fc.assert(
      fc.property(interaction, (i) => {
        const reference = recordInteraction(i, null);
        expect(recordInteraction(i, memo)).toEqual(reference); // misses
        expect(recordInteraction(i, memo)).toEqual(reference); // hits
        expect(recordInteraction(i)).toEqual(reference); // the process's memo
      }),
      { numRuns: 1500 },
    );
  });

  it('keeps the record of a large interaction (strings cut, keys past the memo bound) identical', () => {
    const long = `${'Meeting notes ü 💥 '.repeat(5000)}${SECRETS[1]!}`;
    const i: Interaction = {
      kind: 'tool_call', agent: 'local', session: SECRETS[7]!, profile: {}, server: 'ws', tool: 'write_file',
      arguments: { path: 'a.txt', content: long, [`k${'y'.repeat(300)}${SECRETS[0]!}`]: long, many: Array.from({ length: 300 }, (_, n) => `${n} ${long.slice(0, 400)}`) },
    };
    const reference = recordInteraction(i, null);
    expect(reference.truncated).toBe(true);
    expect(recordInteraction(i)).toEqual(reference);
    expect(recordInteraction(i)).toEqual(reference);
  });

  it('would be caught if it remembered a wrong answer', () => {
    class Stale extends MaskMemo {
      override mask(s: string): string {
        return s; // as if masking were skipped on a hit
      }
    }
    const i: Interaction = { kind: 'message', agent: 'local', session: 's', profile: {}, sender: SECRETS[7]!, recipient: 'b', content: 'hi' };
    const reference = recordInteraction(i, null);
    expect(reference.body).toContain('"sender":"[REDACTED:high_entropy]"');
    expect(recordInteraction(i, new Stale())).not.toEqual(reference);
  });
});

const decision: Decision = { decision: 'allow', rationale: 'Allowed: no rule of the policy is violated.', rules: [], flagged: [], witness: [], threatLevel: 0, source: 'pipeline', elapsedMs: 0.5, detail: {} };

/** An array with a hole before 'a' (the schema rejects it; `every` would skip it). */
const holey: string[] = [];
holey[1] = 'a';

/** Members of an entry: a valid value mostly, else one the schema rejects (or takes by another path); each may be absent. */
const v = <T, U>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<U>): fc.Arbitrary<T | U> => fc.oneof({ arbitrary: valid, weight: 12 }, { arbitrary: other, weight: 1 });
const member = {
  ts: v(fc.oneof(fc.nat(), fc.constant(-0)), fc.oneof(fc.constant(2 ** 60), fc.double(), fc.constant('1'))),
  agent: v(fc.constant('local'), fc.oneof(fc.constant(''), fc.constant(1))),
  session: v(fc.constant('s'), fc.oneof(fc.constant(''), fc.constant(null))),
  kind: v(fc.constantFrom(...AuditEntrySchema.shape.kind.options), fc.oneof(fc.constant('tool'), fc.constant(undefined))),
  server: v(fc.constant('ws'), fc.constant(5)),
  tool: v(fc.constant('read_file'), fc.constant(null)),
  uri: v(fc.constant('file:///a'), fc.constant(['x'])),
  recipient: v(fc.constant('b'), fc.constant({})),
  payload: fc.oneof(json, fc.constant(undefined)),
  interaction: v(fc.constant({ kind: 'tool_call' }), fc.constantFrom('x', null, [])),
  decision: v(fc.constantFrom('allow', 'deny'), fc.constant('ALLOW')),
  rationale: v(fc.string({ maxLength: 10 }), fc.constant(3)),
  rules: v(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), fc.constantFrom([1], holey, 'r')),
  flagged: v(fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), fc.constant([null])),
  witness: v(fc.constant([]), fc.constantFrom([{ rule: 'r', predicates: { p: 'true' }, confidence: 1 }], [{ confidence: 1, rule: 'r', predicates: {}, extra: 1 }], [1])),
  threatLevel: v(fc.integer({ min: 0, max: 4 }), fc.constantFrom(-1, 5, -0, 1.5, NaN)),
  elapsedMs: v(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.constantFrom(-0, -1, Infinity, NaN)),
  policyHash: v(fc.constant('abc'), fc.constant(0)),
  source: v(fc.constant('pipeline'), fc.constant(false)),
  llm: fc.oneof({ arbitrary: fc.constant(undefined), weight: 6 }, { arbitrary: fc.constantFrom({ calls: 1, ms: 2 }, { ms: 2, calls: 1, x: 1 }, { calls: -1 }), weight: 1 }),
  extra: fc.constant('stripped'),
};

const entryArb = fc.tuple(
  fc.record(member, { requiredKeys: [] }),
  fc.record({ agent: fc.constant('local'), kind: fc.constant('tool_call'), decision: fc.constant('allow') }),
  fc.constantFrom('plain', 'null-proto', 'class', 'array', 'raw'),
).map(([m, base, shape]) => {
  const e = { ...base, ...m } as Record<string, unknown>;
  if (shape === 'null-proto') return Object.assign(Object.create(null) as object, e);
  if (shape === 'class') return Object.assign(new (class Entry {})(), e);
  if (shape === 'array') return Object.assign([], e);
  return shape === 'raw' ? m : e;
});

/** The schema's value of every member (an absent member and an undefined one read alike). */
const members = (e: Record<string, unknown>): Record<string, unknown> => Object.fromEntries(Object.keys(AuditEntrySchema.shape).map((k) => [k, e[k]]));

describe('the validation of plain audit entries without zod', () => {
  it('takes only entries the schema accepts, with the schema value of every member', () => {
    let quick = 0;
    fc.assert(
      fc.property(entryArb, (entry) => {
        const parsed = AuditEntrySchema.safeParse(entry);
        const q = quickAuditEntry(entry);
        if (q === undefined) return;
        quick++;
        expect(parsed.success).toBe(true);
        expect(members(q as Record<string, unknown>)).toEqual(members(parsed.data as Record<string, unknown>));
        // Payload and interaction are passed on as they are, by both.
        expect(q.payload).toBe(parsed.data!.payload);
        expect(q.interaction).toBe(parsed.data!.interaction);
      }),
      { numRuns: 5000 },
    );
    expect(quick).toBeGreaterThan(50); // the property did see the quick path
  });

  it('takes the entries of the allow path, and the row is the one the schema path gives', () => {
    const call: Interaction = { kind: 'tool_call', agent: 'local', session: SECRETS[7]!, profile: {}, server: 'ws', tool: 'read_file', arguments: { path: 'notes.txt' }, roots: ['/srv'], pathKeys: ['path'] };
    const result: Interaction = { kind: 'tool_result', agent: 'local', session: SECRETS[7]!, profile: {}, server: 'ws', tool: 'read_file', content: [{ type: 'text', text: `notes ${SECRETS[2]!}` }] };
    for (const i of [call, result]) {
      const entry: AuditEntry = { ...auditEntryFor(i, { ...decision, policy: { name: 'd', version: '1', hash: 'h' } }), ts: 1 };
      expect(quickAuditEntry(entry)).toBeDefined();
      // A class instance is not plain: the schema parses it (it accepts instances), the full path of the same row.
      const viaSchema = Object.assign(new (class Entry {})(), entry) as AuditEntry;
      expect(quickAuditEntry(viaSchema)).toBeUndefined();
      expect(auditFields(entry)).toEqual(auditFields(viaSchema));
      expect(auditFields(entry).rec).toEqual(recordInteraction(i, null));
    }
  });

  it('still rejects every entry the schema rejects, with its message', () => {
    for (const bad of [{ agent: '', kind: 'tool_call', decision: 'allow' }, { agent: 'a', kind: 'tool_call', decision: 'allow', rules: holey }, { agent: 'a', kind: 'tool_call', decision: 'allow', elapsedMs: Infinity }]) {
      expect(quickAuditEntry(bad)).toBeUndefined();
      expect(() => auditFields(bad as AuditEntry)).toThrow(/audit entry is invalid/);
    }
  });
});

describe('the one-shot digest', () => {
  it('is the streaming SHA-256 of the UTF-8 text, lone surrogates included', () => {
    const reference = (t: string): string => createHash('sha256').update(t, 'utf8').digest('hex');
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 100 }), anyString), (t) => {
        expect(sha256Hex(t)).toBe(reference(t));
      }),
      { numRuns: 2000 },
    );
    for (const t of ['', '\ud800', 'a\udfffb', '\udbff\udfff', 'x'.repeat(100_000)]) expect(sha256Hex(t)).toBe(reference(t));
  });

  it('keys a recorded body as the streaming SHA-256 of its UTF-8 text in base64url did', () => {
    const reference = (t: string): string => createHash('sha256').update(t).digest('base64url');
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 100 }), anyString), (t) => {
        expect(bodyDigest(t)).toBe(reference(t));
      }),
      { numRuns: 2000 },
    );
    for (const t of ['', '\ud800', 'a\udfffb', '\udbff\udfff', 'x'.repeat(100_000), '{"kind":"tool_result","agent":"a","content":[]}']) expect(bodyDigest(t)).toBe(reference(t));
  });
});

describe('keys named __proto__', () => {
  it('stay keys of the recorded interaction, masked like any other', () => {
    const args = JSON.parse(`{"__proto__": {"note": "use ${'sk-proj-Zq3v9LmN2pQ8rT5wX1yB4cD7'}"}, "path": "a.txt"}`) as Record<string, unknown>;
    const rec = recordInteraction({ kind: 'tool_call', agent: 'a', session: 's', server: 'ws', tool: 'write_file', arguments: args } as Interaction, null);
    const body = JSON.parse(rec.body ?? 'null') as { arguments: Record<string, unknown> };
    expect(Object.keys(body.arguments)).toEqual(['__proto__', 'path']);
    expect(rec.body).toContain('"__proto__":{"note":"use [REDACTED:');
    expect(rec.masked).toBe(true);
  });

  it('stay keys when a secret-sounding key under them is masked (the copy holds its own __proto__ key)', () => {
    const v = JSON.parse('{"__proto__": {"password": "hunter22"}, "x": 1}') as Record<string, unknown>;
    const out = maskSecretKeys(v) as Record<string, unknown>;
    expect(Object.keys(out)).toEqual(['__proto__', 'x']);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"password":"[REDACTED:password_assignment]"},"x":1}');
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });
});

describe('the row MAC under a key made once', () => {
  it('is HMAC-SHA256 over the key bytes, for any key and hash, however often the key is used', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.array(fc.string({ unit: 'binary' }), { minLength: 1, maxLength: 4 }), (bytes, hashes) => {
        const key = { key: Buffer.from(bytes), file: '(test)', headFile: '' };
        for (const h of [...hashes, ...hashes]) expect(rowMac(key, h)).toBe(createHmac('sha256', Buffer.from(bytes)).update(`row:${h}`, 'utf8').digest('hex'));
      }),
    );
  });
});

/** Strings a column may hold: quotes, backslashes, control characters, lone surrogates, Unicode. */
const columnText = fc.oneof(fc.string({ maxLength: 30 }), fc.string({ unit: 'binary', maxLength: 20 }), fc.constantFrom('', '"', '\\', '\\"', '"id":0', ',"prev_hash":"', '\u2028', '\ud800', '💥'));
const fieldsArb = fc.record({
  ts: fc.integer(),
  agent: columnText,
  session: columnText,
  kind: columnText,
  server: fc.option(columnText),
  tool: fc.option(columnText),
  uri: fc.option(columnText),
  recipient: fc.option(columnText),
  digest: fc.option(columnText),
  preview: fc.option(columnText),
  size: fc.option(fc.nat()),
  decision: columnText,
  rules: columnText,
  flagged: columnText,
  witness: columnText,
  threat: fc.option(fc.integer({ min: 0, max: 4 })),
  rationale: columnText,
  elapsed_ms: fc.option(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constant(-0))),
  policy_hash: fc.option(columnText),
  source: columnText,
  llm: fc.option(columnText),
  ref: fc.option(columnText),
});
const prevArb = fc.oneof(fc.constant(GENESIS_HASH), fc.constant(''), fc.stringMatching(/^[0-9a-f]{64}$/), columnText);

describe('one serialisation of a row for its journal MAC, its journal line and its chain hash', () => {
  it('gives the chain hash of the full computation (canonical JSON of the linked row) for any columns, id and prev_hash', () => {
    fc.assert(
      fc.property(fieldsArb, fc.nat(), prevArb, (fields, id, prev) => {
        const row = { ...fields, id, prev_hash: prev };
        // Columns added by later migrations join the hash only when set.
        const { llm, ref, ...always } = row;
        const full = sha256Hex(prev + canonicalJson({ ...always, ...(llm === null ? {} : { llm }), ...(ref === null ? {} : { ref }) }));
        expect(linkedHash(chainText(fields), id, prev)).toBe(full);
        expect(rowHash(row)).toBe(full);
      }),
      { numRuns: 3000 },
    );
  });

  it("gives the journal line the MAC of the row linked as id 0 after '', and the commit the row's own hash and MAC", () => {
    const key = { key: Buffer.alloc(32, 7), file: '(test)', headFile: '' };
    fc.assert(
      fc.property(fieldsArb, columnText, fc.nat(), prevArb, (fields, ref, id, prev) => {
        const j = journalLine(fields, ref, undefined, key);
        expect(j.mac).toBe(rowMac(key, `journal:${rowHash({ ...fields, ref, id: 0, prev_hash: '' })}`));
        expect(journalLineOk(key, j)).toBe(true);
        // A row read from a file (no chain text kept) is checked by the same MAC.
        expect(journalLineOk(key, { ...j, fields: { ...j.fields } })).toBe(true);
        expect(journalLineOk(key, { ...j, fields: { ...j.fields, decision: `${j.fields.decision}!` } })).toBe(false);
        expect(linkedHash(chainTextOf(j), id, prev)).toBe(rowHash({ ...fields, ref, id, prev_hash: prev }));
      }),
      { numRuns: 1000 },
    );
  });

  it('links and writes any chain text as the former filter-and-join of its pieces did, an empty piece included', () => {
    // The former code (46f111c): the pieces filtered of empty ones, joined with commas.
    const joined = (...parts: string[]): string => parts.filter((p) => p !== '').join(',');
    const formerHash = (t: ChainText, id: number, prev: string): string => sha256Hex(`${prev}{${joined(t.beforeId, `"id":${JSON.stringify(id)}`, t.beforePrev, `"prev_hash":${JSON.stringify(prev)}`, t.rest)}}`);
    const formerColumns = (t: ChainText): string => `{${joined(t.beforeId, t.beforePrev, t.rest)}}`;
    const piece = fc.oneof(fc.constant(''), columnText, fieldsArb.map((f) => chainText(f).rest));
    fc.assert(
      fc.property(fc.record({ beforeId: piece, beforePrev: piece, rest: piece }), fc.oneof(fc.nat(), fc.integer()), prevArb, (t, id, prev) => {
        expect(linkedHash(t, id, prev)).toBe(formerHash(t, id, prev));
        expect(columnsJson(t)).toBe(formerColumns(t));
      }),
      { numRuns: 3000 },
    );
  });

  it('keeps the chain text with the row journalLine made, and makes its own for any other row object', () => {
    const key = { key: Buffer.alloc(32, 9), file: '(test)', headFile: '' };
    fc.assert(
      fc.property(fieldsArb, columnText, fieldsArb, (fields, ref, other) => {
        const j = journalLine(fields, ref, undefined, key);
        expect(chainTextOf(j)).toEqual(chainText({ ...fields, ref }));
        // A copy (which carries the kept text along) with other columns: its own text, its own MAC check.
        const copy = { ...j, fields: { ...other, ref } };
        expect(chainTextOf(copy)).toEqual(chainText(copy.fields));
        expect(journalLineOk(key, copy)).toBe(linkedHash(chainText(copy.fields), 0, '') === linkedHash(chainText(j.fields), 0, ''));
        // Nothing of it is in what the file holds.
        expect(Object.keys(j).sort()).toEqual(['fields', 'mac']);
        expect(Object.keys(JSON.parse(JSON.stringify(j))).sort()).toEqual(['fields', 'mac']);
      }),
      { numRuns: 1000 },
    );
  });

  it('writes each journal line as the JSON of the row it journals: read back, the same row', () => {
    const t = tempDir();
    try {
      const journal = new AuditJournal(t.dir, false);
      const rows = fc.sample(fc.tuple(fieldsArb, fc.option(fc.record({ body: fc.option(columnText), masked: fc.boolean(), truncated: fc.boolean() }), { nil: undefined })), 500)
        .map(([fields, rec]) => journalLine(fields, journal.nextRef(), rec, undefined));
      for (const r of rows) journal.write(r);
      const lines = readFileSync(journal.file, 'utf8').split('\n').slice(0, -1);
      expect(lines).toHaveLength(rows.length);
      for (const [i, line] of lines.entries()) {
        expect(JournalRowSchema.parse(JSON.parse(line))).toEqual(JournalRowSchema.parse(JSON.parse(JSON.stringify(rows[i]))));
      }
      journal.close(true);
    } finally {
      t.cleanup();
    }
  });
});

describe("a row's columns copied key by key, not spread", () => {
  // The former code (270e0a2): journalLine's `{ ...fields, ref }` and AuditLog.after's linked row.
  const formerWithRef = (fields: AuditFields, ref: string) => ({ ...fields, ref });
  const formerLinked = (fields: AuditFields, id: number, prev_hash: string, hash: string, mac: string | null) => ({ ...fields, id, llm: fields.llm ?? null, ref: fields.ref ?? null, prev_hash, hash, mac });
  /** Columns as auditFields makes them (no `ref`), with a `ref` at the end as a journal line's, or without `llm`. */
  const shaped = fc.tuple(fieldsArb, fc.constantFrom('no ref', 'ref', 'no llm')).map(([f, shape]) => {
    const { ref, llm, ...rest } = f;
    const fields: AuditFields = shape === 'no ref' ? { ...rest, llm } : shape === 'ref' ? { ...rest, llm, ref } : ({ ...rest, ref } as AuditFields);
    return { fields, shape };
  });

  it("journals the same columns in the same order, with the same values, as the spread of auditFields' columns did", () => {
    fc.assert(
      fc.property(shaped, columnText, ({ fields, shape }, ref) => {
        const row = withRef(fields, ref);
        if (shape !== 'no llm') expect(Object.entries(row)).toEqual(Object.entries(formerWithRef(fields, ref)));
        expect(chainText(row)).toEqual(chainText(formerWithRef(fields, ref)));
      }),
      { numRuns: 2000 },
    );
    // The allow path's own columns, from auditFields.
    const call: Interaction = { kind: 'tool_call', agent: 'local', session: 's', profile: {}, server: 'ws', tool: 'read_file', arguments: { path: 'notes.txt' } };
    const { fields } = auditFields({ ...auditEntryFor(call, { ...decision, policy: { name: 'd', version: '1', hash: 'h' } }), ts: 1 });
    expect(Object.entries(withRef(fields, 'r1'))).toEqual(Object.entries(formerWithRef(fields, 'r1')));
  });

  it('links a row with the columns, hash and MAC the spread gave it, and stores the same values', () => {
    fc.assert(
      fc.property(shaped, fc.nat(), prevArb, fc.stringMatching(/^[0-9a-f]{64}$/), fc.option(fc.stringMatching(/^[0-9a-f]{64}$/)), fc.option(columnText), ({ fields, shape }, id, prev, hash, mac, body) => {
        const row = linkedRow(fields, id, prev, hash, mac);
        const former = formerLinked(fields, id, prev, hash, mac);
        expect(row).toStrictEqual(former);
        // A journal line's columns (`ref` last) keep the former order too.
        if (shape === 'ref') expect(Object.entries(row)).toEqual(Object.entries(former));
        expect(storedValues(row, body, null)).toEqual(storedValues(former, body, null));
        expect(rowHash(row)).toBe(rowHash(former));
        // PostgreSQL's row after its head: hashed before its hash and MAC are set, then stored.
        const formerPg = { id, ...fields, prev_hash: prev };
        const pg = linkedRow(fields, id, prev, '', null);
        expect(rowHash(pg)).toBe(rowHash(formerPg));
        pg.hash = hash;
        pg.mac = mac;
        expect(storedValues(pg, body, pg.policy_hash)).toEqual(storedValues({ ...formerPg, llm: fields.llm ?? null, ref: fields.ref ?? null, hash, mac }, body, formerPg.policy_hash));
      }),
      { numRuns: 2000 },
    );
  });
});
