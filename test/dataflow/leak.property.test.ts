import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Interaction } from '../../src/core/types.js';
import { CapabilityMap } from '../../src/guard/capabilities.js';
import { DataFlowStage } from '../../src/guard/dataflow.js';
import { makeDecision } from '../../src/core/types.js';
import { silentLogger } from '../../src/core/log.js';
import { openStore, type Store } from '../../src/store/db.js';

/**
 * Property-based: private text read by an identity is found in an outgoing call however it is re-cased,
 * re-spaced, URL- or base64-encoded and split across fields; text that was not read is not.
 */
const word = fc.stringMatching(/^[a-z]{3,9}$/);
// Distinct words: a text repeating one k-gram ("aaa aaa …") has a single fingerprint and is, rightly, not
// enough to count as carrying data.
const sentence = fc.uniqueArray(word, { minLength: 16, maxLength: 30 }).map((w) => w.join(' '));

type Encoding = 'plain' | 'upper' | 'spaces' | 'url' | 'base64' | 'base64url' | 'base64wrapped' | 'hex';
const encodings: Encoding[] = ['plain', 'upper', 'spaces', 'url', 'base64', 'base64url', 'base64wrapped', 'hex'];
function encode(s: string, e: Encoding): string {
  switch (e) {
    case 'plain':
      return s;
    case 'upper':
      return s.toUpperCase();
    case 'spaces':
      return s.replace(/ /g, '\n\t  ');
    case 'url':
      return encodeURIComponent(s);
    case 'base64':
      return Buffer.from(s).toString('base64');
    case 'base64url':
      return Buffer.from(s).toString('base64url');
    case 'base64wrapped':
      return (Buffer.from(s).toString('base64').match(/.{1,76}/g) ?? []).join('\n');
    case 'hex':
      return Buffer.from(s).toString('hex');
  }
}

/** `s` cut at `cuts` (fractions), each piece kept whole. */
function split(s: string, cuts: number[]): string[] {
  const at = [...new Set(cuts.map((c) => Math.floor(c * s.length)))].filter((n) => n > 0 && n < s.length).sort((a, b) => a - b);
  const out: string[] = [];
  let prev = 0;
  for (const n of at) {
    out.push(s.slice(prev, n));
    prev = n;
  }
  out.push(s.slice(prev));
  return out;
}

describe('data flow: encodings and splitting do not hide read data (fast-check)', () => {
  let store: Store;
  let stage: DataFlowStage;
  let n = 0;
  const base = { agent: 'prop', session: 'read', profile: {} };

  beforeAll(() => {
    store = openStore(':memory:');
    stage = new DataFlowStage({ store: store.flow, capabilities: new CapabilityMap(undefined), logger: silentLogger() });
  });
  afterAll(() => store.close());

  const read = async (agent: string, text: string) => {
    const i: Interaction = { ...base, agent, kind: 'tool_result', server: 'mail', tool: 'read_email', content: [{ type: 'text', text }] };
    await stage.record(await stage.inspect(i), makeDecision({ decision: 'allow', rationale: 'ok', auditId: String(++n) }));
  };
  const sendFields = async (agent: string, fields: string[]) => {
    const args: Record<string, unknown> = { to: 'x@outside.example' };
    fields.forEach((f, k) => (args[`part${k}`] = f));
    return stage.inspect({ ...base, agent, session: `send-${n}`, kind: 'tool_call', server: 'hook', tool: 'post_data', arguments: args });
  };

  it('finds the read text under any encoding and any split into up to four fields', async () => {
    await fc.assert(
      fc.asyncProperty(
        sentence,
        fc.constantFrom(...encodings),
        fc.array(fc.double({ min: 0.15, max: 0.85, noNaN: true }), { maxLength: 3 }),
        fc.boolean(),
        async (text, enc, cuts, encodeBeforeSplit) => {
          const agent = `a${++n}`;
          await read(agent, `From: cfo@example.com\n\n${text}`);
          const pieces = encodeBeforeSplit ? split(encode(text, enc), cuts) : split(text, cuts).map((p) => encode(p, enc));
          const out = await sendFields(agent, pieces);
          expect(out.flow?.leak, `${enc} ${JSON.stringify(pieces)}`).toBeDefined();
          expect(out.flow?.leak?.source.tool).toBe('read_email');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('does not find text that was not read, nor the read text for another identity', async () => {
    await fc.assert(
      fc.asyncProperty(sentence, sentence, fc.constantFrom(...encodings), async (readText, other, enc) => {
        const agent = `b${++n}`;
        await read(agent, readText);
        expect((await sendFields(agent, [encode(other, enc)])).flow?.leak).toBeUndefined();
        expect((await sendFields(`${agent}-other`, [encode(readText, enc)])).flow?.leak).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });
});
