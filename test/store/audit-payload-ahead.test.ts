import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision, Interaction } from '../../src/core/types.js';
import { auditFields, payloadColumns } from '../../src/store/audit-row.js';
import { auditEntryFor, auditPayloadOf } from '../../src/store/audit-schema.js';
import { formerAuditFields } from './reference/audit-fields.js';

/**
 * A long interaction's row takes what its payload and interaction decide alone (`payloadColumns`: the payload's
 * digest, size and masked preview, the masked record) from the worker pool's spare thread, computed on a copy before
 * the decision (src/guard/long-texts.ts `auditAhead`). The row must be the one `auditFields` built from the whole
 * entry before the split (reference/audit-fields.ts), with the columns computed here or on a structured clone (what a
 * worker receives), for every decision.
 */

// Assembled at run time so that no scanner mistakes this file for a leak.
const j = (...parts: string[]): string => parts.join('');
const SECRETS = [j('AKIA', 'Z7QW4K2M9XNB3VTL'), j('ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'), 'DB_PASSWORD=hunter22', 'postgres://admin:s3cretPw@db.example.com/app'];
const prose = 'Quarterly figures for the harbour project, payroll and the vendor list. ';

/** Short strings, secrets, Unicode, and long texts past the recorded body's and the preview's caps (64 KiB, a secret before and after the cut). */
const text = fc.oneof(
  { arbitrary: fc.constantFrom('path', 'notes.txt', 'password', 'api_key', '', 'é 💥', ...SECRETS), weight: 4 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 3 },
  {
    arbitrary: fc.tuple(fc.integer({ min: 60_000, max: 140_000 }), fc.constantFrom(...SECRETS), fc.integer({ min: 0, max: 3 })).map(([n, s, at]) => {
      const body = prose.repeat(Math.ceil(n / prose.length)).slice(0, n);
      const cut = [0, 200, 65_530, Math.floor(n / 2)][at]!;
      return `${body.slice(0, cut)}${s}${body.slice(cut)}`;
    }),
    weight: 1,
  },
  { arbitrary: fc.integer({ min: 70_000, max: 100_000 }).map((n) => Buffer.from(prose.repeat(Math.ceil(n / prose.length))).toString('base64').slice(0, n)), weight: 1 },
);
const json: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('v'), { maxLength: 3 }), fc.dictionary(text, tie('v'), { maxKeys: 3 })),
})).v;
const meta = fc.option(fc.dictionary(fc.constantFrom('progressToken', 'token', 'trace'), json, { maxKeys: 2 }), { nil: undefined });
const base = { agent: fc.constantFrom('local', 'assistant'), session: fc.constantFrom('s1', SECRETS[0]!), profile: fc.constant({}) };

const interaction: fc.Arbitrary<Interaction> = fc.oneof(
  fc.record({ kind: fc.constant('tool_call' as const), ...base, server: text, tool: text, arguments: fc.dictionary(text, json, { maxKeys: 4 }), credentialKeys: fc.option(fc.constantFrom(['api_key'], ['password', 'path']), { nil: undefined }), meta }, { requiredKeys: ['kind', 'agent', 'session', 'profile', 'server', 'tool', 'arguments'] }),
  fc.record({ kind: fc.constant('tool_result' as const), ...base, server: text, tool: text, content: fc.oneof(text, fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 3 })), meta }, { requiredKeys: ['kind', 'agent', 'session', 'profile', 'server', 'tool', 'content'] }),
  fc.record({ kind: fc.constant('resource_result' as const), ...base, server: text, uri: text, content: fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 2 }) }),
  fc.record({ kind: fc.constant('message' as const), ...base, sender: text, recipient: text, content: text }),
) as fc.Arbitrary<Interaction>;

const decision: fc.Arbitrary<Decision> = fc.record({
  decision: fc.constantFrom('allow', 'deny') as fc.Arbitrary<'allow' | 'deny'>,
  rationale: fc.constantFrom('Allowed: no rule of the policy is violated.', `Denied: ${SECRETS[1]!}`),
  rules: fc.array(fc.constantFrom('no-exfiltration', 'r2'), { maxLength: 2 }),
  flagged: fc.array(fc.constantFrom('p1', 'p2'), { maxLength: 2 }),
  // A witness takes the schema's path (quickAuditEntry declines it); none, the quick one.
  witness: fc.constantFrom([], [{ rule: 'no-exfiltration', predicates: { p1: 'true' as const }, confidence: 1 }]),
  threatLevel: fc.integer({ min: 0, max: 4 }),
  source: fc.constantFrom('pipeline', 'busy'),
  elapsedMs: fc.constant(1.5),
  detail: fc.constant({}),
}) as fc.Arbitrary<Decision>;

describe("a row built with its payload's columns computed ahead", () => {
  it('is the row auditFields built from the whole entry, the columns computed here or on a clone, for any decision', () => {
    let long = 0;
    fc.assert(
      fc.property(interaction, decision, (i, d) => {
        const entry = { ...auditEntryFor(i, d), ts: 1_700_000_000_000 };
        const reference = formerAuditFields(entry);
        expect(auditFields(entry)).toEqual(reference);
        // As the spare thread computes them: on the payload auditAhead takes, structured-cloned with the interaction.
        const payload = auditPayloadOf(i);
        expect(payload).toEqual(entry.payload);
        const cloned = structuredClone({ payload, i });
        expect(auditFields(entry, payloadColumns(cloned.payload, cloned.i))).toEqual(reference);
        if ((reference.fields.size ?? 0) > 65_536) long++;
      }),
      { numRuns: 400 },
    );
    // The property saw payloads past the caps (the preview and the record of a long string).
    expect(long).toBeGreaterThan(10);
  }, 120_000);
});
