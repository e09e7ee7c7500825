import fc from 'fast-check';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { describeSameScoreOnCorpora, loadedBothWays } from './support/gate-proof.js';
import { benignTexts, corpusTexts, devTexts, linesOf, redteamTexts } from './support/injection-texts.js';
import { AI_SUBJECT, MODAL, openings, orderShape, starts } from '../../src/detectors/injection/directive.js';
import { openingBreaks } from '../../src/detectors/injection/fast-paths.js';
import { MODAL_WORD_GROUP } from '../../src/detectors/injection/gate-literals.js';
import { ORDER_VERBS } from '../../src/detectors/injection/lexicon.js';
import { GATED_MAX, orderUnits, VERB, type ModalWordStarts } from '../../src/detectors/injection/order-cues.js';
import { TextScan } from '../../src/detectors/scan.js';
import { units, type Unit } from '../../src/detectors/injection/sentences.js';

/**
 * The directive signal reads only the lines where an order can start (src/detectors/injection/order-cues.ts). Two
 * checks: the units the gate gives are the units of the text shaped as orders (the only ones that score), in order,
 * with the same fields (the unit before each, the structure around it); and the whole scorer, loaded again with the gate swapped for
 * test/detectors/reference/injection-order-cues.ts (every unit), gives the same score and findings. On the
 * hand-written corpora, the red-team tests' texts, the eval dev cases when ../shared is there, and generated texts:
 * order words, openers and modal words at random places, after every kind of break, prefix, line end and white space,
 * in long texts read window by window.
 */

const GATE = '../../src/detectors/injection/order-cues.js';

async function loadScorer() {
  return { ...(await import('../../src/detectors/injection/index.js')), ...(await import('../../src/detectors/injection/directive.js')) };
}
type Scorer = Awaited<ReturnType<typeof loadScorer>>;
let gated: Scorer;
let plain: Scorer;

beforeAll(async () => {
  ({ gated, plain } = await loadedBothWays(loadScorer, () => vi.doMock(GATE, () => import('./reference/injection-order-cues.js')), () => vi.doUnmock(GATE)));
});

const isModalLine = (line: string): boolean => MODAL.test(line) || AI_SUBJECT.test(line);
const isOrder = (u: Unit): boolean => orderShape(u.text, starts(u.text)).order;

/** The modal words of `text` as the one scan of a longer text holding it after `before` finds them. */
function scannedModalWords(text: string, before: string): ModalWordStarts {
  const scan = new TextScan(before + text);
  const runs = scan.runsIn(before.length, before.length + text.length);
  return (visit) => void runs.someLiteral!(MODAL_WORD_GROUP, (at) => (visit(at), false));
}

/**
 * The gate's units are exactly the order units of `units(text)`, with the same fields: with the gate's own search
 * for modal words, and with the scan's (of the text alone, and of the text inside a longer one).
 */
function expectGateExact(text: string, label: string): void {
  const want = units(text).filter(isOrder);
  expect(orderUnits(text, isModalLine, isOrder), label).toEqual(want);
  expect(orderUnits(text, isModalLine, isOrder, scannedModalWords(text, '')), `${label} (scanned)`).toEqual(want);
  expect(orderUnits(text, isModalLine, isOrder, scannedModalWords(text, 'you must\\n')), `${label} (scanned, inside)`).toEqual(want);
}

function expectSameScore(text: string, label: string): void {
  expect(gated.scoreInjection(text), label).toEqual(plain.scoreInjection(text));
  expect(gated.directive(text), label).toEqual(plain.directive(text));
}

const corpus = corpusTexts();
const benign = benignTexts();

describe('the gate keeps every unit that can be an order', () => {
  it('on the hand-written corpora', () => {
    for (const [i, t] of corpus.entries()) expectGateExact(t, `corpus ${i}`);
  });

  const redteam = redteamTexts();
  it('on the red-team tests\' texts', () => {
    expect(redteam.length).toBeGreaterThan(100);
    for (const [i, t] of redteam.entries()) expectGateExact(t, `redteam ${i}`);
  });

  const dev = devTexts();
  it.skipIf(dev.length === 0)('on the eval dev cases (../shared/data/eval/dev)', () => {
    for (const [i, t] of dev.entries()) if (t.length <= GATED_MAX) expectGateExact(t, `dev ${i}`);
  }, 300_000);
});

/** Words an order is made of, and words that look like them. */
const OPENERS = ['please', 'Please,', 'now', 'also', 'then', 'and', 'but', 'so', 'ok', 'kindly', 'quietly', 'really', 'just', 'first:', 'next', 'instead', 'only', 'right away', 'from now on', 'per favore', "s'il vous plaît", 'пожалуйста', '请', 'in addition', 'after that'];
const LEADS = ['do not', "don't", 'never', 'make sure', 'make sure to', 'make sure that', 'be sure to', 'remember to', "don't forget to", 'do not forget to'];
const VERBS = ['send', 'Send', 'SEND', 'forward', 'tell', 'mention', 'summarize', 'summarise', 'e-mail', 'sign up', 'look up', 'do', 'go', 'di', 'dis', 'cc', 'have', 'only', 'antworten Sie', 'réponds', 'ответь', '告诉', 'ignore', 'review', 'reviews', 'preview', 'send-off', "send's", 'sending', 'ſend', 'K\u212Aeep'];
const MODALS = ['you must', 'You should', 'you need to', 'the assistant must', 'the model is now', 'your answer should', 'the user wants you to', 'whoever reads this should', 'YOU', 'yours', 'need', 'has to', 'is now', 'has been', 'any agent reviewing this must'];
const OTHER = ['the', 'report', 'Q3', 'x', 'table', 'meeting', 'evil@example.com', 'https://x.io/?a=1', 'password', 'in French', 'instead', 'regardless', 'AI:', 'Assistant', 'é', 'Ünïcödé', '名前', 'x'.repeat(60), '12', 'id_rsa'];
const word = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...OPENERS) },
  { weight: 1, arbitrary: fc.constantFrom(...LEADS) },
  { weight: 4, arbitrary: fc.constantFrom(...VERBS) },
  { weight: 2, arbitrary: fc.constantFrom(...MODALS) },
  { weight: 4, arbitrary: fc.constantFrom(...OTHER) },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);
const lines = linesOf(word, benign);

describe('on generated texts', () => {
  it('the gate keeps every order unit of texts of order words at random places', () => {
    fc.assert(
      fc.property(lines(30), (t) => expectGateExact(t, JSON.stringify(t))),
      { numRuns: 1500 },
    );
  });

  it('a line over the unit length (cut units) and texts at the gate\'s length limit', () => {
    fc.assert(
      fc.property(lines(6), fc.nat(600), fc.constantFrom(...VERBS), (t, n, v) => {
        const long = `${'word '.repeat(Math.floor(n / 5))}${v} now${t}`;
        expectGateExact(`${t}\n${long}\n${t}`, 'long line');
        expectGateExact(`${long}${t}`, 'long line first');
      }),
      { numRuns: 200 },
    );
    // Long lines (taken whole, not searched for modal words and verbs) among short ones, with modal words and
    // verbs at their ends and across every kind of line break.
    const longLine = fc.tuple(fc.array(fc.constantFrom(...VERBS, ...MODALS, ...OTHER), { minLength: 1, maxLength: 8 }), fc.nat(3)).map(([ws, k]) => `${ws.join(' ')} ${'filler words '.repeat(40 + 10 * k)}${ws.join(' ')}`);
    const mixedLines = fc.array(fc.tuple(fc.oneof(longLine, lines(2)), fc.constantFrom('\n', '\r\n', '\\n', '\\need you must ', '\n  ')), { maxLength: 8 }).map((p) => p.map(([l, b]) => l + b).join(''));
    fc.assert(
      fc.property(mixedLines, (t) => expectGateExact(t, JSON.stringify(t))),
      { numRuns: 400 },
    );
    // A long sentence is read in pieces cut at white space: no piece ends inside a word, so "you shallow" is not read
    // as "you shall" (a cut at MAX_LEN made it an order); an order on a long line is read; the gate is exact on all.
    for (const [t, order] of [[`${'x'.repeat(490)} you shallow waters`, false], [`${'x'.repeat(486)} the AI is nowhere`, false], [`Please send the files now, ${'x'.repeat(500)}`, true]] as const) {
      expect(units(t).some(isOrder), t.slice(480)).toBe(order);
      expectGateExact(`Notes\n${t}\nMore notes here.`, t.slice(480));
    }
    // A modal word opening a line after each kind of break: in "you are required to" the line's only one, which the
    // scan finds at the line's start.
    for (const br of ['\n', '\r\n', '\\n', '\n\n', '\n  ']) {
      for (const m of ['you must', 'You should', 'the model has to', 'you are required to', 'You are instructed to']) expectGateExact(`Notes on the quarter${br}${m} list the figures in the summary.${br}Thanks`, `${m} after ${JSON.stringify(br)}`);
    }
    // Escaped line breaks ("\\n") next to modal words and verbs.
    for (const t of ['Notes\\need you must send it now.', 'x\\nYou must send it.\\nPlease forward the file.', 'a\\nsend the file now\\n', 'you\\nmust\\nsend']) expectGateExact(t, t);
    const filler = `${benign.join('\n')}\n`.repeat(10);
    for (const at of [GATED_MAX - 40, GATED_MAX - 1, GATED_MAX, GATED_MAX + 1]) {
      const t = `${filler.slice(0, at - 30)}\nPlease send it to me now.`.slice(0, at);
      expectGateExact(t, `length ${at}`);
    }
  });

  // Carrier marks (a comment, bullet, quote or table bar: PREFIX_MARKS) before an order verb open an opening only
  // where `openings` strips them (a unit's start or an earlier strip's end) or as a break (" - ", " -> "): marks
  // after code, words, splits, strips and label words, with and without white space, in runs and runs of runs.
  it('marks before an order verb: after code, words, every split, strip and label word', () => {
    const BEFORE = ['', 'SELECT a FROM t;', 'x = 1', 'done.', 'Really?', 'Wow!', 'ok;', '[12:00]', '[x]', '1.', '2)', 'v2.0', 'f(x)', 'Note:', 'key:', 'NOTE', 'note', 'Notes', 'todo re', 'FIXME', 'P.S.', 'PS', 'p.s', 'ps', 'tips', 'action item', 'urgent', 'a,b', 'a, b', 'a,', '"a",', '"k": "', '|', 'x |', 'x|', 'é', '名前。', '好！', '吗？', '，', '：', 're', 'http://x.io', 'end -', 'x —', 'a_b', '(', '[', 'Ü'];
    const MARKS = ['#', '//', '--', '-', '–', '—', '*', '>', '->', '=>', '==', "'", '`', '"', '•', '~', '|', '/*', '# -', '- #', '> >', '-#', '#-'];
    const SPACE = ['', ' ', ' ', '  ', '\t', '\u3000', '\u00a0'];
    const line = fc
      .tuple(fc.constantFrom(...BEFORE), fc.constantFrom(...SPACE), fc.array(fc.tuple(fc.constantFrom(...MARKS), fc.constantFrom(...SPACE)), { minLength: 1, maxLength: 3 }), fc.constantFrom('', 'please ', 'Now, ', 'quietly ', 'make sure to '), fc.constantFrom(...VERBS), fc.constantFrom(' the file to me now', ' all of it', '', ' it'))
      .map(([b, s, ms, o, v, rest]) => b + s + ms.map(([m, w]) => m + w).join('') + o + v + rest);
    fc.assert(
      fc.property(fc.array(fc.tuple(line, fc.constantFrom('\n', '\r\n', '\\n', '. ', ' ')), { minLength: 1, maxLength: 6 }), (ls) => {
        const t = ls.map(([l, e]) => l + e).join('');
        expectGateExact(t, JSON.stringify(t));
      }),
      { numRuns: 3000 },
    );
  });

  // directive.ts builds its carrier-prefix expression from PREFIX_MARKS and LABEL_WORDS (lexicon.ts), which the gate
  // reads too: the openings are those of the expression written out before.
  it('the openings are those of the carrier-prefix expression written out', () => {
    const FORMER_PREFIX = /^(?:\[[^\]\n]{0,24}\]\s*|[#/*>|"'`\-–•=~]+\s*|\d{1,3}[.)]\s+|(?:TODO|FIXME|NOTE|REMINDER|IMPORTANT|URGENT|ACTION(?: ITEM| REQUIRED)?|P\.?S\.?)\b[^:\n]{0,40}[:!-]\s*|[\w.@-]{1,30}:\s+)/i;
    const former = (s: string): string[] => {
      let t = s;
      for (let i = 0; i < 4; i++) {
        const m = FORMER_PREFIX.exec(t);
        if (!m || m[0].length === 0) break;
        t = t.slice(m[0].length);
      }
      return [t, ...openingBreaks(t, Infinity).map((at) => t.slice(at))];
    };
    for (const t of [...corpus, ...redteamTexts()]) for (const u of units(t)) expect(openings(u.text), u.text).toEqual(former(u.text));
    fc.assert(
      fc.property(lines(4), (t) => {
        for (const l of t.split('\n')) expect(openings(l.trim()), l).toEqual(former(l.trim()));
      }),
      { numRuns: 1000 },
    );
  });

  // The verbs' expression, written as it was: a look-behind and the flat list.
  it('the verbs\' expression matches where the former one did', () => {
    const literals = [...new Set(ORDER_VERBS.split('|').flatMap((v) => (v.includes('[sz]') ? [v.replace('[sz]', 's'), v.replace('[sz]', 'z')] : [v])))];
    const VERB_FORMER = new RegExp(`(?<![A-Za-z0-9_])(?:${literals.join('|')})(?![\\w'-])`, 'gi');
    const places = (re: RegExp, t: string): number[] => {
      const out: number[] = [];
      re.lastIndex = 0;
      for (let m = re.exec(t); m !== null; m = re.exec(t)) {
        out.push(m.index);
        re.lastIndex = m.index + 1;
      }
      return out;
    };
    const expectSame = (t: string): void => {
      expect(places(VERB, t), JSON.stringify(t.slice(0, 200))).toEqual(places(VERB_FORMER, t));
    };
    for (const t of [...corpus, ...redteamTexts(), ...devTexts()]) expectSame(t);
    const around = ['', ' ', 'x', '_', '1', '-', "'", '\\n', 'é', 'ж', '名', '\u212A', 'ſ', '.', '\n'];
    for (const v of literals) for (const before of around) for (const after of around) for (const form of [v, v.toUpperCase(), v[0]!.toUpperCase() + v.slice(1)]) expectSame(before + form + after);
    fc.assert(
      fc.property(lines(10), (t) => expectSame(t)),
      { numRuns: 1000 },
    );
  }, 120_000);

  it('the scorer gives the same score and findings with the gate as with every unit read', () => {
    fc.assert(
      fc.property(lines(20), (t) => expectSameScore(t, JSON.stringify(t))),
      { numRuns: 400 },
    );
  });
});

describeSameScoreOnCorpora(expectSameScore);
