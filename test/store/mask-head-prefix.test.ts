import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/canonical.js';
import type { Interaction } from '../../src/core/types.js';
import { INTERACTION_CAP, payloadPreview, recordInteraction } from '../../src/store/audit-interaction.js';
import { maskHeadPrefix, maskPrefix } from '../../src/store/redact.js';
import { loadCorpus } from '../fixtures/injection/corpus.js';
import { formerPayloadPreview } from './reference/payload-preview.js';
import { formerRecordInteraction } from './reference/record-interaction.js';

/**
 * The audit row's preview of a payload with a string past `INTERACTION_CAP` is read from the head of the shortened
 * payload's JSON (`canonicalJsonHead`, `maskHeadPrefix`) instead of the whole JSON written and masked. Compared with
 * `maskPrefix` of the whole text, and the preview with the former `payloadPreview` (test/store/reference/), on the
 * injection corpus's texts and generated ones, with secrets, encoded secrets and token runs planted where the
 * preview's windows end (752, 1,504, 3,008 and 6,016 characters) and where the head ends.
 */

const AWS_ID = 'AKIAIOSFODNN7EXAMPLE';
const GHP = 'ghp_16C7e42F292c6912E7710c838347Ae178B4a';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7bq9Xk2c\nq1w2e3r4t5y6u7i8o9p0\n-----END RSA PRIVATE KEY-----';
const SECRETS = [AWS_ID, GHP, JWT, PEM, 'password=hunter22secret', 'Bearer abcdef0123456789xyz', 'https://me:hunter22@db.example.com', encodeURIComponent(`token=${GHP}`)];
const base64Of = (n: number, seed: number): string => Buffer.from(Array.from({ length: Math.ceil((n * 3) / 4) }, (_, i) => (i * 131 + seed * 17 + ((i * i) >> 3)) & 255)).toString('base64').slice(0, n);
const SECRET_PIECES = [...SECRETS, ...SECRETS.map((s) => Buffer.from(`key ${s}`).toString('base64')), base64Of(900, 1), base64Of(7000, 2), 'é\u{1F600}"\\\n'];

const CORPUS = loadCorpus('tuning').map((r) => r.text);
/** About `n` characters of the corpus's texts, from text `from` on. */
const corpusText = (n: number, from: number): string => {
  let out = '';
  for (let i = from; out.length < n; i++) out += `${CORPUS[i % CORPUS.length]!}\n`;
  return out.slice(0, n);
};
/** Where the preview's windows end in its JSON (the text starts about 30 characters in) and where the head ends. */
const EDGES = [240, 752, 1504, 3008, 6016, 8192];
const place = fc.oneof(fc.integer({ min: 0, max: 9000 }), fc.tuple(fc.constantFrom(...EDGES), fc.integer({ min: -80, max: 40 })).map(([e, d]) => Math.max(0, e + d)));
/** A long text: corpus prose with up to three pieces planted. */
const longText = fc
  .tuple(fc.integer({ min: INTERACTION_CAP + 1, max: 90_000 }), fc.nat(), fc.array(fc.tuple(fc.constantFrom(...SECRET_PIECES), place), { maxLength: 3 }))
  .map(([n, from, planted]) => planted.reduce((t, [s, at]) => `${t.slice(0, at)}${s}${t.slice(at)}`, corpusText(n, from)));

const preview = (value: unknown) => payloadPreview(canonicalJson(value), value, 240);
const former = (value: unknown) => formerPayloadPreview(canonicalJson(value), value, 240);

describe("the preview of a long payload from its JSON's head", () => {
  it('maskHeadPrefix, when it answers, is maskPrefix of the whole text', () => {
    let answered = 0;
    fc.assert(
      fc.property(longText, fc.constantFrom(...EDGES, 1000, 2048, 4096, 12_000), fc.constantFrom(1, 100, 240, 1000), (text, head, max) => {
        const got = maskHeadPrefix(text.slice(0, head), max);
        if (got !== undefined) {
          answered++;
          expect(got).toBe(maskPrefix(text, max));
        }
      }),
      { numRuns: 400 },
    );
    expect(answered).toBeGreaterThan(200);
  }, 120_000);

  it('does not answer when a window or a token run reaches the end of the head', () => {
    const text = `${'a b '.repeat(150)}${base64Of(5000, 3)} ${'c d '.repeat(20_000)}`;
    // The first window ends inside the run, which goes on past a head of 2,000 characters.
    expect(maskHeadPrefix(text.slice(0, 2000), 240)).toBeUndefined();
    expect(maskHeadPrefix(text.slice(0, 7000), 240)).toBe(maskPrefix(text, 240));
    // A head shorter than the first window.
    expect(maskHeadPrefix(text.slice(0, 700), 240)).toBeUndefined();
    // A run that ends exactly at the head's end may go on in the text: no answer. One character earlier, it ends in the head.
    const run = `${'a b '.repeat(150)}${'x'.repeat(2000)}`;
    expect(maskHeadPrefix(run, 240)).toBeUndefined();
    expect(maskHeadPrefix(`${run} `, 240)).toBe(maskPrefix(`${run} ${'y'.repeat(5000)}`, 240));
  });

  it("a result's preview is the former preview (content blocks, arguments, `_meta`, several long strings)", () => {
    let long = 0;
    const payload = fc.oneof(
      fc.array(fc.oneof(longText, fc.constantFrom('short note', GHP)), { minLength: 1, maxLength: 3 }).map((texts) => texts.map((text) => ({ type: 'text', text }))),
      fc.tuple(longText, longText).map(([a, b]) => ({ content: [{ type: 'text', text: a }], _meta: { note: b, token: 'x' } })),
      fc.tuple(longText, fc.constantFrom('/srv/ws/report.txt', AWS_ID)).map(([body, path]) => ({ path, body })),
    );
    fc.assert(
      fc.property(payload, (value) => {
        if (canonicalJson(value).length > INTERACTION_CAP) long++;
        expect(preview(value)).toBe(former(value));
      }),
      { numRuns: 60 },
    );
    expect(long).toBeGreaterThan(40);
  }, 120_000);

  it('a soak read of 200 KB, each corpus text at its start', () => {
    for (let from = 0; from < CORPUS.length; from += 29) {
      const value = [{ type: 'text', text: corpusText(200_000, from) }];
      expect(preview(value)).toBe(former(value));
    }
  }, 120_000);
});

describe('the recorded body of an interaction with a string past the cap', () => {
  const interaction = (content: unknown, args?: unknown) =>
    ({ kind: args === undefined ? 'tool_result' : 'tool_call', agent: 'a', session: 's', server: 'fs', tool: 'read_file', profile: {}, ...(args === undefined ? { content } : { arguments: args }) }) as Interaction;
  const nested = (leaf: string): unknown => {
    let v: unknown = leaf;
    for (let i = 0; i < 70; i++) v = { k: v };
    return v;
  };

  it('is the former body, without writing the whole JSON first', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(longText, fc.constantFrom('short', GHP, PEM)), { minLength: 1, maxLength: 4 }), fc.boolean(), (texts, asArgs) => {
        const i = asArgs ? interaction(undefined, Object.fromEntries(texts.map((t, n) => [`f${n}`, t]))) : interaction(texts.map((text) => ({ type: 'text', text })));
        expect(recordInteraction(i)).toEqual(formerRecordInteraction(i));
        expect(recordInteraction(i, null)).toEqual(formerRecordInteraction(i));
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('keys that mask alike (the later value kept), a long key, nesting past the limit, `__proto__`', () => {
    const long = corpusText(70_000, 3);
    const cases = [
      interaction(undefined, { [AWS_ID]: long, [GHP]: 'short' }),
      interaction(undefined, { [GHP]: 'short', [AWS_ID]: long }),
      interaction(undefined, { [long]: 'v' }),
      interaction(undefined, { ['__proto__']: long, a: 'b' }),
      interaction(undefined, JSON.parse(`{"__proto__": ${JSON.stringify(long)}, "a": "b"}`)),
      interaction(nested('x'.repeat(70_000))),
      // Cut for its depth, with a string that fits: written whole.
      ...[64_900, 65_000, 65_100].map((n) => interaction([{ type: 'text', text: 'a'.repeat(n) }, nested('x')])),
      interaction([{ type: 'text', text: `${long}${long}` }, { type: 'text', text: 'a'.repeat(65_534) }]),
      interaction([{ type: 'text', text: 'a'.repeat(65_535) }]),
      interaction([{ type: 'text', text: 'a'.repeat(65_536) }]),
      interaction(Array.from({ length: 5000 }, (_, n) => `${n} ${long.slice(0, 20)}`).concat(long)),
    ];
    for (const i of cases) expect(recordInteraction(i, null)).toEqual(formerRecordInteraction(i));
  });
});
