import fc from 'fast-check';
import { CHARGRAM, FEATURE_WEIGHTS, STOPWORDS } from '../../src/core/text/features.js';
import { fmix, fnvRaw, SIGN_SEED } from '../../src/core/text/hashing.js';
import { describe, expect, it } from 'vitest';
import { LocalEmbedder } from '../../src/core/text/local-embedder.js';
import { sparseCosine, sparseNorm, sparseToDense } from '../../src/core/text/sparse.js';
import { stem, stemmedTokens } from '../../src/core/text/features.js';

const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * (b[i] as number), 0);

describe('LocalEmbedder', () => {
  const e = new LocalEmbedder();

  it('is deterministic across calls and instances', async () => {
    const a = e.embedSparse('Book a flight from Boston to Denver');
    const b = new LocalEmbedder().embedSparse('Book a flight from Boston to Denver');
    expect(b).toEqual(a);
    const [d1] = await e.embed(['Book a flight from Boston to Denver']);
    expect(Array.from(d1 as Float32Array)).toEqual(Array.from(sparseToDense(a, 512)));
  });

  it('produces unit vectors of the configured size and an id naming them', async () => {
    const small = new LocalEmbedder({ dims: 64 });
    const [v] = await small.embed(['rent a car in Detroit']);
    expect(v).toHaveLength(64);
    expect(small.id).toBe('local-hash-v2-64');
    expect(sparseNorm(small.embedSparse('rent a car in Detroit'))).toBeCloseTo(1, 5);
    expect(small.embedSparse('!!! ...')).toEqual({ indices: [], values: [] });
    expect(() => new LocalEmbedder({ dims: 3 })).toThrow(RangeError);
  });

  it('scores similar texts higher than unrelated ones', () => {
    const q = e.embedSparse('book a flight to Paris');
    const similar = e.embedSparse('booking flights from London to Paris');
    const unrelated = e.embedSparse('list the patients admitted to the cardiac ward');
    expect(sparseCosine(q, similar)).toBeGreaterThan(sparseCosine(q, unrelated) + 0.2);
  });

  it('ignores stopwords and weighs short words like long ones', () => {
    expect(e.embedSparse('the and of for to')).toEqual({ indices: [], values: [] });
    expect(sparseCosine(e.embedSparse('the best of the movies'), e.embedSparse('best movies'))).toBeCloseTo(1, 5);
    const text = e.embedSparse('show the popular tv series and the toyota ads');
    const short = sparseCosine(text, e.embedSparse('tv'));
    const long = sparseCosine(text, e.embedSparse('toyota'));
    expect(Math.abs(short - long)).toBeLessThan(0.05);
  });

  it('dense and sparse cosines agree', async () => {
    const [a, b] = await e.embed(['apply for a job in sales', 'search for jobs in sales']);
    const s = sparseCosine(e.embedSparse('apply for a job in sales'), e.embedSparse('search for jobs in sales'));
    expect(cos(a as Float32Array, b as Float32Array)).toBeCloseTo(s, 5);
  });
});

describe('text features', () => {
  it('stems plural and verb suffixes lightly', () => {
    expect(stem('flights')).toBe('flight');
    expect(stem('booking')).toBe('book');
    expect(stem('shopping')).toBe('shop');
    expect(stem('movies')).toBe(stem('movie'));
    expect(stem('add')).toBe('add');
    expect(stemmedTokens('Café BOOKED, tickets!')).toEqual(['cafe', 'book', 'ticket']);
  });
});

describe('the embedder follows its feature spec exactly', () => {
  /**
   * Every feature of a text, as named keys: per content word (stemmed, stopwords dropped) its unigram and bigram, and
   * the character n-grams of the padded word sharing one budget.
   */
  function features(text: string): Array<{ key: string; weight: number }> {
    const words = stemmedTokens(text).filter((w) => !STOPWORDS.has(w));
    const out: Array<{ key: string; weight: number }> = [];
    words.forEach((w, i) => {
      out.push({ key: `w:${w}`, weight: FEATURE_WEIGHTS.unigram });
      if (i + 1 < words.length) out.push({ key: `b:${w} ${words[i + 1] as string}`, weight: FEATURE_WEIGHTS.bigram });
      const padded = `^${w}$`;
      const grams: string[] = [];
      for (let n = CHARGRAM.min; n <= CHARGRAM.max; n++) for (let s = 0; s + n <= padded.length; s++) grams.push(padded.slice(s, s + n));
      for (const g of grams) out.push({ key: `c:${g}`, weight: FEATURE_WEIGHTS.chargram / Math.sqrt(grams.length) });
    });
    return out;
  }

  /** The embedding by definition: every named feature, signed-hashed into `dims`, summed, normalised. */
  function byDefinition(text: string, dims: number) {
    const acc = new Map<number, number>();
    for (const f of features(text)) {
      const index = fmix(fnvRaw(f.key, 0)) % dims;
      const sign = (fmix(fnvRaw(f.key, SIGN_SEED)) & 1) === 0 ? 1 : -1;
      acc.set(index, (acc.get(index) ?? 0) + sign * f.weight);
    }
    let norm = 0;
    for (const v of acc.values()) norm += v * v;
    norm = Math.sqrt(norm);
    if (norm === 0) return { indices: [], values: [] };
    const indices = [...acc.keys()].filter((i) => acc.get(i) !== 0).sort((a, b) => a - b);
    return { indices, values: indices.map((i) => Math.fround((acc.get(i) as number) / norm)) };
  }

  it('gives the same indices and float32 values as the definition, for any text', () => {
    const word = fc.constantFrom('flight', 'book', 'booking', 'Toyota', 'delete', 'rm', '-rf', '/etc/passwd', 'email', 'x@y.z', 'Ünïcode', 'straße', '123', 'the', 'of', 'a', '—', '!!');
    for (const dims of [512, 1 << 20]) {
      const e = new LocalEmbedder({ dims });
      fc.assert(
        fc.property(fc.array(word, { maxLength: 80 }), fc.constantFrom(' ', ', ', '\n'), (words, sep) => {
          const text = words.join(sep);
          expect(e.embedSparse(text)).toEqual(byDefinition(text, dims));
        }),
        { numRuns: 300 },
      );
    }
  });

  it('agrees with the definition for any dimension count (masked or modulo), long and short words, any characters', () => {
    // Power-of-two counts take the mask, others the modulo; words from 1 to 60 characters grow the gram scratch.
    const word = fc.oneof(
      fc.constantFrom('a', 'tv', 'rm', 'notes.txt', 'x'.repeat(60), 'supercalifragilisticexpialidocious', 'ab12cd', 'ÉCOLE', '数据', '🙂ok'),
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 8 }),
    );
    for (const dims of [8, 500, 512, 777, 1 << 20, 3 * (1 << 18)]) {
      const e = new LocalEmbedder({ dims });
      fc.assert(
        fc.property(fc.array(word, { maxLength: 30 }), fc.constantFrom(' ', '/', '-'), (words, sep) => {
          const text = words.join(sep);
          expect(e.embedSparse(text)).toEqual(byDefinition(text, dims));
        }),
        { numRuns: 150 },
      );
    }
  });

  it('gives each text the vector a fresh embedder gives it, whatever words it kept from earlier texts (and past its bound)', () => {
    // One embedder keeps each word's features for the next texts; a fresh one per text computes everything. Words
    // recur across texts with other neighbours (bigrams), and more distinct words than it keeps (4,096) pass.
    const kept = new LocalEmbedder({ dims: 1 << 20 });
    const word = fc.oneof(fc.constantFrom('read', 'file', 'path', 'notes.txt', 'tmp', 'x'.repeat(70), 'ws', 'call'), fc.string({ minLength: 1, maxLength: 10 }));
    fc.assert(
      fc.property(fc.array(word, { maxLength: 40 }), (words) => {
        const text = words.join(' ');
        expect(kept.embedSparse(text)).toEqual(new LocalEmbedder({ dims: 1 << 20 }).embedSparse(text));
      }),
      { numRuns: 400 },
    );
    const many = Array.from({ length: 5000 }, (_, k) => `w${k.toString(36)}x`).join(' ');
    expect(kept.embedSparse(many)).toEqual(byDefinition(many, 1 << 20));
    expect(kept.embedSparse(`${many} read file`)).toEqual(byDefinition(`${many} read file`, 1 << 20));
  });
});
