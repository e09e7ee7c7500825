import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normaliseForFingerprint } from '../../../src/core/text/fingerprint.js';
import { heldAddress, mailAddresses } from '../../../src/core/text/mail-addresses.js';

const all = (text: string) => mailAddresses(text, 256, 1, 64);

describe('mailAddresses: the e-mail addresses a text holds whole', () => {
  it('finds an address in a header, in prose, in JSON and in angle brackets, normalised', () => {
    expect(all('From: hr-director@northwind-holdings.example\nSubject: x')).toEqual(['hrdirectornorthwindholdingsexample']);
    expect(all('Write to Jan.Novak+news@mail.example.cz, or call.')).toEqual(['jannovaknewsmailexamplecz']);
    expect(all('{"sender":"ops_team@corp.example","to":["a.b@x.example"]}')).toEqual(['opsteamcorpexample', 'abxexample']);
    expect(all('Margaret Okonkwo <m.okonkwo@board.example>.')).toEqual(['mokonkwoboardexample']);
    expect(all('ünïcode.nåme@exämple.de')).toEqual([normaliseForFingerprint('ünïcode.nåme@exämple.de')]);
  });

  it('takes no handle, decorator, version or address without a top-level domain of letters', () => {
    expect(all('@margaret said hi; @Component({}) and npm i pkg@1.2.3, user@localhost, a@b.c1, @@, a@.example, .@x.example')).toEqual([]);
  });

  it('keeps each address once, within the length and count bounds', () => {
    const text = 'a@x.example b@x.example a@x.example a-very-long-local-part-of-an-address@x.example';
    expect(mailAddresses(text, 256, 1, 64)).toEqual(['axexample', 'bxexample', 'averylonglocalpartofanaddressxexample']);
    expect(mailAddresses(text, 256, 20, 64)).toEqual(['averylonglocalpartofanaddressxexample']);
    expect(mailAddresses(text, 1, 1, 64)).toEqual(['axexample']);
    expect(mailAddresses(text, 256, 1, 12)).toEqual(['axexample', 'bxexample']);
  });

  it('reads at most 64 characters of a local part and stops at the next @ on either side', () => {
    expect(mailAddresses(`${'x'.repeat(100)}@long.example`, 256, 1, 200)).toEqual([`${'x'.repeat(64)}longexample`]);
    expect(all('a@b@c.example')).toEqual(['bcexample']);
  });

  it('every address found is in the text, and no input makes it throw (any characters, many @)', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'Z', '7', '.', '-', '_', '+', '@', ' ', 'é', '\n', 'example', 'x.io'), { maxLength: 200 }).map((p) => p.join('')), (t) => {
        const normalised = normaliseForFingerprint(t.replace(/[^\p{L}\p{N}@]/gu, ''));
        for (const a of all(t)) expect(normalised.replace(/@/g, '')).toContain(a);
      }),
      { numRuns: 2000 },
    );
  });

  it('the held form is no normalised text: a send is never matched against it', () => {
    expect(heldAddress('abxexample')).toBe('@abxexample');
    expect(normaliseForFingerprint(heldAddress('abxexample'))).not.toBe(heldAddress('abxexample'));
  });
});
