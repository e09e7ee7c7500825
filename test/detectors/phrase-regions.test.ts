import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { loadedBothWays } from './support/gate-proof.js';
import { benignTexts, corpusTexts, devTexts, joined, redteamTexts } from './support/injection-texts.js';
import { ACTION_COMMAND } from '../../src/detectors/injection/action-command.js';
import { ADDRESSED_TO_AI } from '../../src/detectors/injection/addressed-to-ai.js';
import { WINDOW } from '../../src/detectors/injection/index.js';
import { OVERRIDE } from '../../src/detectors/injection/override.js';
import { findHintHits, hintLiterals, type CompiledPattern } from '../../src/detectors/injection/phrase-family.js';
import { patternMatches, reachOf } from '../../src/detectors/injection/phrase-regions.js';
import { ROLE_MARKER } from '../../src/detectors/injection/role-marker.js';

/**
 * A phrase pattern whose reach is finite is tried only on slices around its hints (src/detectors/injection/phrase-regions.ts).
 * Checks: the reach derived from a pattern's syntax (hand-made cases, and which patterns have none); every pattern
 * answers on the slices as on the whole text, on the hand-written corpora, the red-team tests' texts, the eval dev
 * cases when ../shared is there, and generated texts of the patterns' words and hints planted in long filler at
 * random places, across line breaks, Unicode white space and the slices' cuts; and the whole scorer, loaded again
 * with the regions swapped for test/detectors/reference/injection-phrase-regions.ts (whole texts), gives the same
 * score and findings.
 */

const REGIONS = '../../src/detectors/injection/phrase-regions.js';

async function loadScorer() {
  return await import('../../src/detectors/injection/index.js');
}
let regions: Awaited<ReturnType<typeof loadScorer>>;
let whole: Awaited<ReturnType<typeof loadScorer>>;

beforeAll(async () => {
  ({ gated: regions, plain: whole } = await loadedBothWays(loadScorer, () => vi.doMock(REGIONS, () => import('./reference/injection-phrase-regions.js')), () => vi.doUnmock(REGIONS)));
});

const FAMILIES: Record<string, readonly CompiledPattern[]> = { override: OVERRIDE, role_marker: ROLE_MARKER, addressed_to_ai: ADDRESSED_TO_AI, action_command: ACTION_COMMAND };
const PATTERNS = Object.entries(FAMILIES).flatMap(([family, ps]) => ps.map((p, i) => ({ family, i, p })));

function maskOf(p: CompiledPattern): Uint8Array {
  const m = new Uint8Array(hintLiterals().length);
  for (const id of p.hintIds) m[id] = 1;
  return m;
}
const MASKS = new Map(PATTERNS.map(({ p }) => [p, maskOf(p)]));

/** Every pattern answers on its regions as on the whole text. */
function expectSameMatches(text: string, label: string): void {
  const { hits } = findHintHits(text);
  for (const { family, i, p } of PATTERNS) {
    expect(patternMatches(p.re, MASKS.get(p)!, text, hits), `${family}[${i}] ${p.detail} on ${label}`).toBe(p.re.test(text));
  }
}

describe('the reach of a pattern', () => {
  it('is derived from its syntax', () => {
    expect(reachOf(/ab\b/i)).toEqual({ behind: 1, longest: 2, ahead: 1 });
    expect(reachOf(/a[^.\n]{0,40}(?:bc|d)/)).toEqual({ behind: 0, longest: 43, ahead: 0 });
    expect(reachOf(/(?<=abc )d/)).toEqual({ behind: 4, longest: 1, ahead: 1 });
    expect(reachOf(/(?<!\b(?:asks|ask) to )x/)).toEqual({ behind: 9, longest: 1, ahead: 1 });
    expect(reachOf(/x(?=\s?y)/)).toEqual({ behind: 1, longest: 1, ahead: 2 });
    expect(reachOf(/^a/m)).toEqual({ behind: 1, longest: 1, ahead: 0 });
    expect(reachOf(/(?:ab){2,3}c?/)).toEqual({ behind: 0, longest: 7, ahead: 0 });
    for (const re of [/a+/, /a\s*b/, /a{2,}/, /^a/, /a$/, /(a)\1/, /a/u, /a/g, /a/y, /(?<=a+)b/, /(?=(?=a))b/]) expect(reachOf(re), String(re)).toBeUndefined();
  });

  it('is finite for most phrase patterns; those without one are tried on the whole text', () => {
    const none = PATTERNS.filter(({ p }) => reachOf(p.re) === undefined).map(({ family, p }) => `${family}: ${p.detail}`);
    expect(PATTERNS.length - none.length).toBeGreaterThan(25);
    // The list bench/README.md gives (an unbounded \s+, \S+ or \w+, a text anchor, an unbounded look-behind); a
    // pattern changed to gain or lose a finite reach shows here.
    expect(none).toEqual([
      'override: previous instructions are void',
      'override: new instructions:',
      'override: the assistant is now …',
      'override: you are now …',
      'override: role-play persona without rules',
      'override: role-play, then an action',
      'override: as the <persona>, act',
      'override: hide it from the user',
      'role_marker: ### system marker',
      'role_marker: [SYSTEM] banner',
      'role_marker: SYSTEM: at line start',
      'role_marker: System: role line',
      'role_marker: fake system message object',
      'role_marker: fake tool-call JSON',
      'addressed_to_ai: to you, the assistant',
      'addressed_to_ai: vocative to the AI',
      'addressed_to_ai: AI, please …',
      'addressed_to_ai: Assistant, please …',
      'action_command: print your system prompt',
      'action_command: label + imperative action on a target',
      'action_command: label + imperative action',
      "action_command: action on the user's data",
      'action_command: read credential files',
    ]);
  });
});

const corpus = corpusTexts();
const benign = benignTexts();

describe('every pattern answers on its regions as on the whole text', () => {
  it('on the hand-written corpora and the red-team tests\' texts, alone and joined', () => {
    const texts = [...corpus, ...redteamTexts()];
    for (const [i, t] of texts.entries()) expectSameMatches(t, `text ${i}`);
    for (const [n, chunk] of joined(texts, WINDOW).entries()) expectSameMatches(chunk, `chunk ${n}`);
  }, 300_000);

  const dev = devTexts();
  it.skipIf(dev.length === 0)('on the eval dev cases (../shared/data/eval/dev), joined', () => {
    for (const [n, chunk] of joined(dev, WINDOW).entries()) expectSameMatches(chunk, `dev chunk ${n}`);
  }, 600_000);

  /** Every word of the patterns and every hint, cased, with the breaks between them. */
  const WORDS = [...new Set(PATTERNS.flatMap(({ p }) => [...(p.re.source.match(/[A-Za-z][A-Za-z'-]+/g) ?? []), ...p.hint.map((h) => h.replace(/^\\b/, ''))]))];
  const cased = WORDS.flatMap((w) => [w, w.toUpperCase(), w[0]!.toUpperCase() + w.slice(1)]);
  const SEPARATORS = [' ', ' ', ' ', '  ', ', ', ': ', '. ', '\n', '\r\n', '\n\n', '\t', '\u00a0', '\u2003', '\u3000', '!', '-', '"', "'", '<', '>', '[', ']', '#', '|', '', 'x', '_'];
  const phrase = fc.array(fc.tuple(fc.constantFrom(...cased), fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 10 }).map((ws) => ws.map(([w, s]) => w + s).join(''));
  const attacks = corpus.filter((t) => t.length < 400);
  const filler = `${benign.join('\n')}\n`;
  const piece = fc.oneof(
    { weight: 3, arbitrary: phrase },
    { weight: 1, arbitrary: fc.constantFrom(...attacks) },
    { weight: 3, arbitrary: fc.tuple(fc.nat(filler.length), fc.nat(3000)).map(([at, n]) => filler.slice(at, at + n)) },
    { weight: 1, arbitrary: fc.nat(300).map((n) => 'w'.repeat(n)) },
  );
  it('on generated texts: the patterns\' words and hints planted in long filler', () => {
    expect(WORDS.length).toBeGreaterThan(150);
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 12 }).map((ps) => ps.join('')), (t) => expectSameMatches(t, JSON.stringify(t.slice(0, 200)))),
      { numRuns: 1500 },
    );
  }, 300_000);

  it('with a match ending or starting right at a slice\'s cut', () => {
    // A word run up to the cut makes "\b" true in the slice but false in the text, and the reverse.
    for (const { p } of PATTERNS) {
      const reach = reachOf(p.re);
      if (reach === undefined) continue;
      const span = reach.behind + reach.longest + reach.ahead;
      for (const hint of p.hint.slice(0, 6)) {
        const h = hint.replace(/^\\b/, '');
        for (const pad of [span - 2, span - 1, span, span + 1, span + 2]) {
          for (const t of [`${'a'.repeat(pad)}${h}${'b'.repeat(pad)}${' x'.repeat(2 * span)}`, `${' x'.repeat(2 * span)}${'z'.repeat(pad)} ${h} ${'y'.repeat(pad)}`]) expectSameMatches(t, `${p.detail} ${pad}`);
        }
      }
    }
  });
});

describe('the scorer with regions and on whole texts', () => {
  it('on the hand-written corpora and the red-team texts, alone and inside long texts across windows', () => {
    const texts = [...corpus, ...redteamTexts()];
    for (const [i, t] of texts.entries()) expect(regions.scoreInjection(t), `text ${i}`).toEqual(whole.scoreInjection(t));
    for (const [n, chunk] of joined(texts, 3 * WINDOW).entries()) expect(regions.scoreInjection(chunk), `chunk ${n}`).toEqual(whole.scoreInjection(chunk));
  }, 300_000);

  const dev = devTexts();
  it.skipIf(dev.length === 0)('on the eval dev cases (../shared/data/eval/dev)', () => {
    for (const [i, t] of dev.entries()) expect(regions.scoreInjection(t), `dev ${i}`).toEqual(whole.scoreInjection(t));
  }, 600_000);
});
