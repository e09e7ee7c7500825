import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { canonicalJson } from '../../src/core/canonical.js';
import { INTERACTION_CAP, mapStrings, payloadPreview, recordInteraction } from '../../src/store/audit-interaction.js';
import { auditFields } from '../../src/store/audit-row.js';
import { maskPrefix, maskSecrets } from '../../src/store/redact.js';
import { maskPrefixDoubling } from './reference/mask-prefix.js';
import { maskSpans } from '../../src/detectors/secrets/catalogue.js';

// The secrets catalogue's masker as it is, counted: how often a long text is read.
vi.mock('../../src/detectors/secrets/catalogue.js', async (original) => {
  const real = await original<typeof import('../../src/detectors/secrets/catalogue.js')>();
  return { ...real, maskSpans: vi.fn(real.maskSpans) };
});

/**
 * The audit row's preview (`payloadPreview`) masks a payload's long strings once, shared with the recorded body,
 * instead of reading them again inside the payload's JSON. Compared with the preview as it was, `maskPrefix` of the
 * payload's whole JSON (today's masker, kept here as the reference): the same text for every payload without a
 * string over `INTERACTION_CAP`, and for long ones never a secret in clear that the reference hides.
 */

const AWS_ID = 'AKIAIOSFODNN7EXAMPLE';
const GHP = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq9Xk2c\nq1w2e3r4t5y6u7i8o9p0\n-----END RSA PRIVATE KEY-----';
const base64Of = (n: number, seed: number): string => Buffer.from(Array.from({ length: Math.ceil((n * 3) / 4) }, (_, i) => (i * 131 + seed * 17 + ((i * i) >> 3)) & 255)).toString('base64').slice(0, n);
const encodedKey = Buffer.from(`token ${GHP}`).toString('base64');
const CLEAR = [AWS_ID, GHP, PEM.slice(0, 40), encodedKey.slice(0, 40), 'hunter22secret'];

const secretPiece = fc.constantFrom(AWS_ID, GHP, PEM, PEM.slice(0, 60), encodedKey, 'password=hunter22secret', `token: ${GHP}`, ' ', '\n', '"', '\\', '. ', 'the report for March ', '=');
/** Pieces of a string: secrets, separators, base64 runs and prose of any length. */
const piece = (long: boolean) =>
  fc.oneof(
    secretPiece,
    fc.tuple(fc.integer({ min: 1, max: long ? 90_000 : 3000 }), fc.integer({ min: 0, max: 99 })).map(([n, seed]) => base64Of(n, seed)),
    fc.integer({ min: 1, max: long ? 25_000 : 700 }).map((n) => 'a b '.repeat(n)),
    fc.integer({ min: 1, max: 2000 }).map((n) => 'Q'.repeat(n)),
  );
const str = (long: boolean) => fc.array(piece(long), { minLength: 1, maxLength: 6 }).map((p) => p.join(''));
/** The shapes a payload has: content blocks, call arguments (with a `token` key beside a text), a bare string. */
const payload = (long: boolean) =>
  fc.oneof(
    fc.array(str(long), { minLength: 1, maxLength: 3 }).map((texts) => texts.map((text) => ({ type: 'text', text }))),
    fc.tuple(str(long), str(false)).map(([body, note]) => ({ path: '/srv/ws/report.txt', body, meta: { note, token: 'x' } })),
    str(long),
  );

/** The preview as it was: the payload's whole text masked as one. */
const reference = (value: unknown) => maskPrefix(typeof value === 'string' ? value : canonicalJson(value), 240);
const preview = (value: unknown) => payloadPreview(typeof value === 'string' ? value : canonicalJson(value), value, 240);
/**
 * The preview with each string masked on its own. The whole-text reference lets a PEM key cut before its END line
 * mask everything after it, the payload's later strings too; masking a long string alone stops that mask at the
 * string's end, so a later string that holds no secret (`AKIA…` run on into more capitals) is shown.
 */
const eachAlone = (value: unknown) => maskPrefix(typeof value === 'string' ? maskSecrets(value) : canonicalJson(mapStrings(value, maskSecrets, { truncated: false }, 0, (k) => k)), 240);

describe("the audit row's preview reads a long string once", () => {
  it('is the whole-text preview for every payload without a long string', () => {
    fc.assert(
      fc.property(payload(false), (value) => {
        expect(preview(value)).toBe(reference(value));
      }),
      { numRuns: 300 },
    );
  });

  it('never shows a secret in clear that the whole-text preview hides, for payloads with long strings', () => {
    let long = 0;
    fc.assert(
      fc.property(payload(true), (value) => {
        const text = typeof value === 'string' ? value : canonicalJson(value);
        if (text.length > INTERACTION_CAP) long++;
        const before = reference(value);
        const now = preview(value);
        const alone = eachAlone(value);
        for (const secret of CLEAR) if (!before.includes(secret) && !alone.includes(secret)) expect(now).not.toContain(secret);
        // At most 240 characters and the cut's `…`, except that a marker begun before the 240th is shown whole.
        const shown = now.endsWith('…') ? now.slice(0, -1) : now;
        if (shown.length > 240) expect(shown).toMatch(/\[REDACTED:[a-z0-9_]+\]$/);
        if (shown.length > 240) expect(shown.lastIndexOf('[REDACTED:')).toBeLessThan(240);
      }),
      { numRuns: 120 },
    );
    // The generator reaches the shared path, not only the short one.
    expect(long).toBeGreaterThan(20);
  }, 120_000);

  it("a PEM key cut before its END line in a long string masks that string, and a later string's key is still masked", () => {
    const cut = { type: 'text', text: `${PEM.slice(0, 60)}${'a b '.repeat(20_000)}` };
    const withKey = [cut, { type: 'text', text: AWS_ID }];
    expect(preview(withKey)).toBe('[{"text":"[REDACTED:private_key]","type":"text"},{"text":"[REDACTED:aws_access_key]","type":"text"}]');
    // `AKIA` and sixteen capitals run on into more is no key: masked alone, its string is shown.
    const notKey = [cut, { type: 'text', text: `${AWS_ID}QQQ` }];
    expect(preview(notKey)).toContain(`${AWS_ID}QQQ`);
    expect(reference(notKey)).not.toContain(AWS_ID);
  });

  it('a 1.3 MB base64 result: the same preview and body as before, its run masked once', () => {
    const b64 = base64Of(1_300_000, 1);
    for (const text of [b64, `data: ${b64}`, `${b64}\nend of file`, `${'x '.repeat(100)}${b64}`, `${AWS_ID} ${b64} ${GHP}`]) {
      const content = [{ type: 'text', text }];
      const interaction = { agent: 'a', session: 's', kind: 'tool_result' as const, server: 'fs', tool: 'read_file', content, profile: {} };
      const built = auditFields({ agent: 'a', session: 's', kind: 'tool_result', server: 'fs', tool: 'read_file', payload: content, interaction, decision: 'allow', rationale: 'ok', rules: [], flagged: [], witness: [], source: 'policy', ts: 1 });
      expect(built.fields.preview).toBe(maskPrefixDoubling(canonicalJson(content), 240));
      expect(built.fields.preview).not.toContain(b64.slice(0, 40));
      expect(built.rec).toEqual(recordInteraction(interaction, null));
    }
  }, 60_000);

  it("reads a 1.3 MB base64 result's run once for its preview and its recorded body", () => {
    const b64 = base64Of(1_300_000, 2);
    const content = [{ type: 'text', text: `data: ${b64}` }];
    const interaction = { agent: 'a', session: 's', kind: 'tool_result' as const, server: 'fs', tool: 'read_file', content, profile: {} };
    const read = vi.mocked(maskSpans);
    read.mockClear();
    auditFields({ agent: 'a', session: 's', kind: 'tool_result', server: 'fs', tool: 'read_file', payload: content, interaction, decision: 'allow', rationale: 'ok', rules: [], flagged: [], witness: [], source: 'policy', ts: 1 });
    expect(read.mock.calls.filter(([t]) => t.length > 1_000_000)).toHaveLength(1);
  });

  it("a long text's masked prefixes, kept for the turn, are each max's own answer", () => {
    const text = `${AWS_ID} ${'a b '.repeat(20_000)}${base64Of(100_000, 3)} ${GHP} end`;
    const asked = [240, INTERACTION_CAP, 240, 2000, Number.POSITIVE_INFINITY].map((max) => maskPrefix(text, max));
    expect(asked).toEqual([240, INTERACTION_CAP, 240, 2000, Number.POSITIVE_INFINITY].map((max) => maskPrefixDoubling(text, max)));
    // Another text of the same length is not answered from the first one's.
    const other = text.replace(AWS_ID, 'AKIAXXXXXXXXXXXXXXXX');
    expect(maskPrefix(other, 240)).toBe(maskPrefixDoubling(other, 240));
  });
});
