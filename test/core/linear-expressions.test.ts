import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nameWordsOf } from '../../src/core/credential-fields.js';
import { TRIM } from '../../src/core/text/short-values.js';
import { AMOUNT_EDGES, COMMAND, DATA_URI_HEAD } from '../../src/core/text/steering-values.js';
import { ADDRESSED_TO_AI } from '../../src/detectors/injection/addressed-to-ai.js';
import { cellsOf } from '../../src/detectors/injection/fast-paths.js';
import { LOOKS_LIKE_PATH } from '../../src/detectors/path-args.js';
import { SHELL_COMMAND_FLAG } from '../../src/detectors/shell/commands.js';
import { VERSION_SUFFIX } from '../../src/detectors/shell/destroys.js';
import { TAIL_SIGNALS } from '../../src/detectors/shell/index.js';
import { CHMOD_SETID, NC_EXEC_FLAG, OS_ENVIRON_DUMP } from '../../src/detectors/shell/rules.js';
import { URL_TRAILING_PUNCTUATION } from '../../src/detectors/url-domain.js';
import { withoutKeys } from '../../src/guard/provenance.js';
import { camelSpaced } from '../../src/guard/provenance-actions.js';
import { ROLE_MARKERS } from '../../src/llm/neutralize.js';
import { fenceContent } from '../../src/llm/structured.js';
import { expectSameOnTexts } from '../detectors/support/injection-texts.js';

/**
 * Expressions rewritten so that no run is read again from each of its characters (eslint-plugin-regexp's
 * no-super-linear-move / no-super-linear-backtracking, issue 30, thirteenth round) give what the former ones, kept
 * here, gave: on the corpora, the red-team and dev texts, and 20,000 texts generated from the pieces of each. Each
 * reads a 200 K-character run of its attack string with a rejecting end (the former ones took seconds to minutes).
 */
const matches = (re: RegExp, t: string): Array<[number, ...Array<string | undefined>]> => [...t.matchAll(re)].map((m) => [m.index, ...m]);
const replaced = (re: RegExp, t: string): string => t.replace(re, '<>');
const tests = (re: RegExp, t: string): boolean => new RegExp(re.source, re.flags).test(t);

const vocative = ADDRESSED_TO_AI.find((p) => p.detail === 'vocative to the AI')!.re;
const FORMER_VOCATIVE_GAP = '[\\n([<*#>:.!?]\\s*';
const NOW_VOCATIVE_GAP = '(?:[([<*#>:.!?]|(?<![\\n([<*#>.!?]\\s*?)\\n)\\s*';
const roleLine = ROLE_MARKERS.find((re) => re.source.includes('(?:system|assistant|developer)'))!;

interface Rewritten {
  name: string;
  now: (t: string) => unknown;
  former: (t: string) => unknown;
  pieces: string[];
  /** Texts built otherwise than from any pieces in any order. */
  generated?: fc.Arbitrary<string>;
  /** Whether the former computation finds something in a text (the generated texts must reach it). */
  hit: (t: string) => boolean;
  /** A long run of the attack string with a rejecting end, and what is found in it. */
  long: string;
  found: unknown;
}

const SPACES = [' ', '  ', '\t', '\n', '\r\n', '\u00a0'];
const RUN = 200_000;
const CASES: Rewritten[] = [
  {
    name: 'a run of capitals before a capitalised word (camelSpaced, nameWordsOf)',
    now: (t) => [camelSpaced(t), nameWordsOf(t)],
    former: (t) => [t.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2'), t.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean)],
    pieces: ['A', 'AB', 'HTTP', 'a', 'b', 'ab', 'Ab', 'Send', 'email', '1', '_', '-', ' ', 'É', 'é'],
    hit: (t) => /[A-Z]{2}[a-z]/.test(t),
    long: `${'A'.repeat(RUN)}1 sendHTTPRequest`,
    found: [`${'A'.repeat(RUN)}1 send HTTP Request`, ['a'.repeat(RUN) + '1', 'send', 'http', 'request']],
  },
  {
    name: "a URL's trailing punctuation",
    now: (t) => replaced(URL_TRAILING_PUNCTUATION, t),
    former: (t) => replaced(/[).,;:!?\]]+$/, t),
    pieces: [')', '.', ',', ';', ':', '!', '?', ']', 'x', '/', 'a', '(', '['],
    hit: (t) => /[).,;:!?\]]$/.test(t),
    long: `https://a.example/${')'.repeat(RUN)}x).`,
    found: `https://a.example/${')'.repeat(RUN)}x<>`,
  },
  {
    name: "a word's edge punctuation (short values)",
    now: (t) => replaced(TRIM, t),
    former: (t) => replaced(/^[\s"'`()[\]{}<>,;:.!?*_]+|[\s"'`()[\]{}<>,;:.!?*_]+$/g, t),
    pieces: ['.', '..', '"', '(', ')', ' ', ':', '*', '_', 'x', 'ab', '1', '-', '/'],
    hit: (t) => /^[\s"'`()[\]{}<>,;:.!?*_]|[\s"'`()[\]{}<>,;:.!?*_]$/.test(t),
    long: `(x${'.'.repeat(RUN)}x).`,
    found: `<>x${'.'.repeat(RUN)}x<>`,
  },
  {
    name: "an amount's edges",
    now: (t) => replaced(AMOUNT_EDGES, t),
    former: (t) => replaced(/^[^\d]+|[^\d]+$/g, t),
    pieces: ['1', '12', '0', 'a', '$', '€', ' ', '.', ',', 'USD', 'x'],
    hit: (t) => /^\D|\D$/.test(t),
    long: `1${'a'.repeat(RUN)}1 USD`,
    found: `1${'a'.repeat(RUN)}1<>`,
  },
  {
    name: "a data: URI's header",
    now: (t) => matches(DATA_URI_HEAD, t),
    former: (t) => matches(/\bdata:[\w.+-]*\/?[\w.+-]*(?:;[\w.+-]+(?:=[\w.+-]*)?)*,/gi, t),
    pieces: ['data:', 'DATA:', 'text', 'image', '/', '//', 'plain', '+', '.', '-', ';', 'base64', '=', 'utf-8', ',', 'x', ' ', '!'],
    hit: (t) => matches(/\bdata:[\w.+-]*\/?[\w.+-]*(?:;[\w.+-]+(?:=[\w.+-]*)?)*,/gi, t).length > 0,
    long: `data:${'a'.repeat(RUN)}! data:text/plain;base64,QQ==`,
    found: [[RUN + 7, 'data:text/plain;base64,']],
  },
  {
    name: 'a command line starting with $',
    now: (t) => matches(COMMAND, t),
    former: (t) => matches(/`([^`\n]{4,400})`|^\s*\$ (.{4,400})$/gm, t),
    pieces: [...SPACES, '\r', '\u2028', '$ ', '$', 'echo hi', 'ls -la', '`', 'rm -rf x', 'ab', ':'],
    hit: (t) => matches(/`([^`\n]{4,400})`|^\s*\$ (.{4,400})$/gm, t).length > 0,
    long: `${'\n'.repeat(RUN)}x\n \n\t$ echo hi`,
    found: [[RUN + 2, ' \n\t$ echo hi', undefined, 'echo hi']],
  },
  {
    name: 'a JSON or YAML key at a line start (withoutKeys)',
    now: withoutKeys,
    former: (t) => t.replace(/["'][\w .-]{1,64}["']\s*:/g, ' ').replace(/^\s*[\w-]{1,64}:(?=\s)/gm, ' '),
    pieces: [...SPACES, '\r', '\u2028', 'key', 'to', 'a-b', ':', ': ', '"k":', "'k' :", 'value', '-', 'x'],
    hit: (t) => /^\s*[\w-]{1,64}:(?=\s)/m.test(t),
    long: `${'\n'.repeat(RUN)}x\n\n key: v`,
    found: `${'\n'.repeat(RUN)}x\n  v`,
  },
  {
    name: 'a path argument with a backslash',
    now: (t) => tests(LOOKS_LIKE_PATH, t),
    former: (t) => tests(/^(?:file:\/\/|\/|~(?:[A-Za-z0-9_.-]*)(?:\/|$)|\.\.?(?:\/|\\|$)|[A-Za-z]:[\\/]|\\\\)|^[^\s]*\\[^\s]*$/, t),
    pieces: ['\\', '\\\\', 'a', 'dir', '/', '.', '~', 'C:', ' ', 'file://', 'x'],
    hit: (t) => tests(/^[^\s]*\\[^\s]*$/, t),
    long: `a${'\\'.repeat(RUN)} x`,
    found: false,
  },
  {
    name: "a shell's -c flag, nc's -e/-c flag, a setid chmod mode, os.environ read whole",
    now: (t) => [SHELL_COMMAND_FLAG, NC_EXEC_FLAG, CHMOD_SETID, OS_ENVIRON_DUMP].map((re) => tests(re, t)),
    former: (t) => [/^-[a-z]*c[a-z]*$/, /^(-[a-z]*[ec][a-z]*|--exec|--sh-exec|--lua-exec)$/, /[ugoa]*[+=][rwxXt]*s/, /os\.environ(?!\s*[[.]\s*(?:get\s*\()?\s*["'])/].map((re) => tests(re, t)),
    pieces: ['-', '--exec', 'c', 'e', 'x', 'l', 'ec', 'u', 'g', 'o', 'a', '+', '=', 'r', 'x', 's', 't', 'os.environ', '.', '[', ' ', 'get', '(', '"', "'", '!'],
    hit: (t) => /^-[a-z]*[ec][a-z]*$|[ugoa]*[+=][rwxXt]*s|os\.environ/.test(t),
    long: `-${'c'.repeat(RUN)}! ${'a'.repeat(RUN)}x os.environ.${' '.repeat(RUN)}x`,
    found: [false, false, false, true],
  },
  {
    name: "a program name's version",
    now: (t) => matches(new RegExp(VERSION_SUFFIX.source, 'g'), t).slice(0, 1),
    former: (t) => matches(/\d+(?:\.\d+)*$/g, t).slice(0, 1),
    pieces: ['python', 'node', '3', '11', '.', '2', 'x', '-'],
    hit: (t) => /\d$/.test(t),
    long: `python${'1'.repeat(RUN)}x3.11`,
    found: [[RUN + 7, '3.11']],
  },
  {
    name: 'a bare set line in a shell text',
    now: (t) => tests(TAIL_SIGNALS.env_dump, t),
    former: (t) => tests(/\b(?:env|printenv|environ|declare|export)\b|process\.env|%ENV|\bENV\[|\$\{?[A-Z_]*(?:TOKEN|SECRET|PASSW|KEY)|^\s*set\s*$/m, t),
    pieces: [...SPACES, '\r', '\u2028', 'set', 'sets', 'x', ';', 'ls'],
    hit: (t) => /^\s*set\s*$/m.test(t),
    long: `${'\n'.repeat(RUN)}x\n \n set \t`,
    found: true,
  },
  {
    name: 'cells split at | (cellsOf)',
    now: (t) => cellsOf(t, true, false),
    former: (t) => t.split(/\s*\|\s*|(?<=^|,)"|"(?=,|$)|"\s*:\s*"|:\s+"/),
    pieces: [' ', '  ', '\t', '|', ' | ', 'a', 'b c', '"', ',', ':', ': "', '"x": "'],
    hit: (t) => t.includes('|'),
    long: `a${' '.repeat(RUN)}x | b`,
    found: [`a${' '.repeat(RUN)}x`, 'b'],
  },
  {
    name: 'a vocative after a line break or punctuation (addressed to the AI)',
    now: (t) => matches(new RegExp(vocative.source, 'gi'), t),
    former: (t) => matches(new RegExp(vocative.source.replace(NOW_VOCATIVE_GAP, FORMER_VOCATIVE_GAP), 'gi'), t),
    pieces: [...SPACES, '.', '. ', ':', '(', '#', '>', '!', ' x', 'an', ':\n', ...['Note to ', 'note to the ', 'message for ', 'Instructions for the ', 'AI', 'assistant', 'model'].flatMap((p) => [p, p, p])],
    hit: (t) => tests(new RegExp(vocative.source.replace(NOW_VOCATIVE_GAP, FORMER_VOCATIVE_GAP), 'i'), t),
    long: `${'\n'.repeat(RUN)}x${'. \n'.repeat(RUN / 4)}Message for the assistant: x`,
    found: [[RUN + 1 + (RUN / 4 - 1) * 3, '. \nMessage for the assistant']],
  },
  {
    name: 'a role line for the model (neutralize)',
    now: (t) => replaced(roleLine, t),
    former: (t) => replaced(/(?:^|(?<=[.!?]\s))[ \t>#*\-\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]*(?:system|assistant|developer)\s*(?:prompt)?\s*:/gim, t),
    pieces: [...SPACES, 'system', 'System', 'assistant', 'prompt', ' prompt', ':', '.', '#', '>', 'x'],
    hit: (t) => /(?:system|assistant|developer)\s*(?:prompt)?\s*:/i.test(t),
    long: `system${' '.repeat(RUN)}x system prompt :`,
    found: `system${' '.repeat(RUN)}x system prompt :`,
  },
  {
    name: "a model's answer in a code fence",
    now: fenceContent,
    former: (t) => /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.exec(t)?.[1],
    pieces: ['```', '\n', ' ', '\t', '{}', '{"a": 1}', '`', 'json', 'x'],
    generated: fc
      .tuple(fc.constantFrom('```', '```json', '``', ''), fc.array(fc.constantFrom('\n', ' ', '\t', '{}', '{"a": 1}', '`', 'json', 'x', '```'), { maxLength: 12 }), fc.constantFrom('```', '\n```', '``', '```x', ''))
      .map(([open, body, close]) => open + body.join('') + close),
    hit: (t) => /^```(?:json)?\s*\n([\s\S]*?)\n?```$/.test(t),
    long: `\`\`\`json${'\n'.repeat(RUN)}{}\n\`\`\`x`,
    found: undefined,
  },
];

describe('expressions that read each run once', () => {
  it('the vocative keeps the former expression but for its gap', () => {
    expect(vocative.source).toContain(NOW_VOCATIVE_GAP);
  });

  for (const c of CASES) {
    it(`${c.name}: as the former expression, on the corpora and generated texts`, () => {
      const generated = c.generated ?? fc.array(fc.constantFrom(...c.pieces), { maxLength: 24 }).map((p) => p.join(''));
      expect(expectSameOnTexts(c.now, c.former, generated, { hit: c.hit })).toBeGreaterThan(500);
    });

    it(`${c.name}: reads a long run once`, () => {
      expect(c.now(c.long)).toEqual(c.found);
    });
  }
});
