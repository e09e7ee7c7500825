import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseForFingerprint } from '../../../src/core/text/fingerprint.js';
import { heldName, heldNames, MAX_NAME_WORDS } from '../../../src/core/text/held-names.js';
import { scanRead } from '../../../src/core/text/short-value-scan.js';

/** The names of `text` of `min` to `max` normalised characters, as a read's hashes take them. */
const names = (text: string, min = 20, max = 64, limit?: number) => heldNames(text, scanRead(text, { min, max, limit: MAX_NAME_WORDS }).names, min, max, limit);

describe('heldNames: the names a read holds whole', () => {
  it('finds a channel, a user and an address in a JSON list, a YAML list, a header, prose and a mention, normalised', () => {
    expect(names('["general","random","customer-success-escalations-emea"]')).toEqual(['customersuccessescalationsemea']);
    expect(names('channels:\n- general\n- engineering-announcements-internal\n- #board-of-directors-private')).toEqual(['engineeringannouncementsinternal', 'boardofdirectorsprivate']);
    expect(names('From: hr-director@northwind-holdings.example\nSubject: x')).toEqual(['hrdirectornorthwindholdingsexample']);
    expect(names('Margaret Okonkwo <margaret.okonkwo@board.example>, or @margaret.okonkwo-villanueva.')).toEqual(['margaretokonkwoboardexample', 'margaretokonkwovillanueva']);
    expect(names('<#C024BE91L|engineering-announcements-internal> and mailto:ops.escalations@corp.example')).toEqual(['engineeringannouncementsinternal', 'opsescalationscorpexample']);
    expect(names('ünïcode-nåme.of-a-chännel-in-the-list')).toEqual([normaliseForFingerprint('ünïcode-nåme.of-a-chännel-in-the-list')]);
  });

  it('takes no phrase and no piece of a word: the slug of a sentence, or a name inside a longer word, is not held', () => {
    expect(names('The acquisition of Contoso Pharmaceuticals closes on Friday at the board meeting.')).toEqual([]);
    expect(names('see https://wiki.example/pages/engineering-announcements-internal')).toEqual(['wikiexamplepagesengineeringannouncementsinternal']);
    expect(names('key=customer-success-escalations-emea')).toEqual(['customersuccessescalationsemea']);
  });

  it('keeps each name once, within the length and count bounds', () => {
    const text = 'aaaa-bbbb-cccc-dddd-eeee ffff-gggg-hhhh-iiii-jjjj aaaa-bbbb-cccc-dddd-eeee kkkk-llll-mmmm-nnnn-oooo-pppp-qqqq-rrrr-ssss-tttt-uuuu-vvvv-wwww-xxxx-yyyy-zzzz-0000';
    expect(names(text)).toEqual(['aaaabbbbccccddddeeee', 'ffffgggghhhhiiiijjjj']);
    expect(names(text, 20, 64, 1)).toEqual(['aaaabbbbccccddddeeee']);
    expect(names(text, 20, 80)).toEqual(['aaaabbbbccccddddeeee', 'ffffgggghhhhiiiijjjj', 'kkkkllllmmmmnnnnooooppppqqqqrrrrssssttttuuuuvvvvwwwwxxxxyyyyzzzz0000']);
    expect(names(text, 21, 64)).toEqual([]);
  });

  it('every name is a whole word of the text, and no input makes it throw', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'Z', '7', '.', '-', '_', '@', '#', ' ', ',', '"', 'é', 'ﬁ', '\n', 'channel', 'escalations'), { maxLength: 200 }).map((p) => p.join('')), (t) => {
        const words = new Set(t.split(/[\s=:()[\]{}<>,;"'`|]+/).map(normaliseForFingerprint));
        for (const n of names(t, 8, 64)) expect(words.has(n)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('the held form is no normalised text: a send is never matched against it', () => {
    expect(heldName('abxexample')).toBe('@abxexample');
    expect(normaliseForFingerprint(heldName('abxexample'))).not.toBe(heldName('abxexample'));
  });
});
