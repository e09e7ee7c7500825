/**
 * Names a client chooses (a tools/call or prompts/get name and the server prefix split from it, a message's
 * recipient) reach the audit row's columns and the recorded interaction. A credential sent as such a name must be
 * masked there like anywhere else in the store; names that are not secrets stay as they are. Before the fix the
 * row kept them in clear (capName only cut them) and the recorded interaction copied them in clear.
 */
import { describe, expect, it } from 'vitest';
import { InteractionSchema, makeDecision } from '../../src/core/types.js';
import { auditEntryFor } from '../../src/store/audit-schema.js';
import { auditFields } from '../../src/store/audit.js';
import { recordInteraction, ROW_NAME_CAP, rowName } from '../../src/store/audit-interaction.js';
import { maskPrefix } from '../../src/store/redact.js';

const KEY = 'ghp_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789';
const base = { agent: 'a', session: 'stdio-85da3cba-e3c6-4d89-8e61-c551588f4160', profile: {} };
const deny = makeDecision({ decision: 'deny', rationale: 'no such tool', rules: ['unknown-tool'], source: 'unknown' });

const cases = [
  InteractionSchema.parse({ ...base, kind: 'tool_call', server: KEY, tool: 'x', arguments: {} }),
  InteractionSchema.parse({ ...base, kind: 'tool_call', server: 'ws', tool: KEY, arguments: {} }),
  InteractionSchema.parse({ ...base, kind: 'tool_result', server: 'ws', tool: `read_${KEY}`, content: 'ok' }),
  InteractionSchema.parse({ ...base, kind: 'prompt_request', server: 'ws', prompt: KEY, arguments: {} }),
  InteractionSchema.parse({ ...base, kind: 'message', sender: 'a', recipient: KEY, content: 'hello' }),
  InteractionSchema.parse({ ...base, kind: 'message', sender: 'a', recipient: `${'r'.repeat(ROW_NAME_CAP - 10)} ${KEY}`, content: 'hello' }),
];

describe('client-chosen names in the audit row and the recorded interaction', () => {
  it.each(cases.map((i) => [i.kind, i] as const))('masks a credential sent as a name (%s)', (_kind, i) => {
    const { fields, rec } = auditFields(auditEntryFor(i, deny));
    for (const column of [fields.server, fields.tool, fields.recipient]) expect(column ?? '').not.toContain('ghp_AbC');
    expect(rec?.body).not.toContain('ghp_AbC');
    expect(rec?.masked).toBe(true);
    // The memo off (the reference) gives the same record.
    expect(recordInteraction(i, null)).toEqual(rec);
  });

  it('keeps names that are not secrets as they are (session ids too), and the record unmasked', () => {
    const i = InteractionSchema.parse({ ...base, kind: 'tool_call', server: 'ws', tool: 'read_file', arguments: { path: 'notes.txt' } });
    const { fields, rec } = auditFields(auditEntryFor(i, deny));
    expect([fields.agent, fields.session, fields.server, fields.tool]).toEqual(['a', base.session, 'ws', 'read_file']);
    expect(JSON.parse(rec!.body!)).toMatchObject({ session: base.session, server: 'ws', tool: 'read_file' });
    expect(rec!.masked).toBe(false);
    const m = InteractionSchema.parse({ ...base, kind: 'message', sender: 'a', recipient: 'bob', content: 'hi' });
    expect(auditFields(auditEntryFor(m, deny)).fields.recipient).toBe('bob');
  });

  it('cuts a long name at the row cap after masking it', () => {
    const long = `${'t'.repeat(ROW_NAME_CAP + 50)}`;
    const i = InteractionSchema.parse({ ...base, kind: 'tool_call', server: 'ws', tool: long, arguments: {} });
    expect(auditFields(auditEntryFor(i, deny)).fields.tool).toBe(`${'t'.repeat(ROW_NAME_CAP)}…`);
  });
});

describe('rowName', () => {
  it('is maskPrefix at the row cap, memo or not, around the cap and with secrets that grow when masked', () => {
    const pieces = ['', 'x', ' ', 'AKIAIOSFODNN7EXAMPLE', KEY, 'read_file', 'ü'];
    const seen = new Set<string>();
    for (let n = ROW_NAME_CAP - 30; n <= ROW_NAME_CAP + 2; n++) {
      for (const a of pieces) {
        for (const b of pieces) {
          const s = `${a} ${'n'.repeat(Math.max(0, n - a.length - b.length - 2))} ${b}`;
          if (seen.has(s)) continue;
          seen.add(s);
          const want = maskPrefix(s, ROW_NAME_CAP);
          expect(rowName(s)).toBe(want);
          expect(rowName(s)).toBe(want); // the memo's answer, the second time
          expect(rowName(s, null)).toBe(want);
        }
      }
    }
  });
});
