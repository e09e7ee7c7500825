import { describe, expect, it } from 'vitest';
import '../../src/detectors/pii.js';
import { luhnValid, ibanValid } from '../../src/detectors/luhn.js';
import { BIG, call, compile, configError, PAST_CAP, scan } from './helpers.js';

const P = { type: 'pii' };
const kinds = (text: string): string[] => [...(scan(P, text).evidence ?? '').matchAll(/(email|phone|card|iban|national_id) /g)].map((m) => m[1]!);

describe('pii detector', () => {
  it.each([
    ['email', 'write to jane.doe+tag@mail.example.co.uk today'],
    ['phone', 'call +32 2 555 01 23'],
    ['phone', 'call +14155550132'],
    ['phone', 'call (415) 555-0132'],
    ['phone', 'call 415-555-0132'],
    ['phone', 'ring 020 7946 0958'],
    ['card', 'card 4111 1111 1111 1111 exp 12/29'],
    ['card', 'card 5500-0000-0000-0004'],
    ['card', 'amex 378282246310005'],
    ['card', 'card 4111.1111.1111.1111 exp 12/29'],
    ['iban', 'IBAN DE89 3704 0044 0532 0130 00'],
    ['iban', 'iban GB82WEST12345698765432'],
    ['national_id', 'SSN 536-22-1234'],
    ['national_id', 'NINO AB 12 34 56 C'],
  ])('finds %s in %j', (kind, text) => {
    expect(kinds(text)).toEqual([kind]);
  });

  it.each([
    ['an order number failing Luhn', 'order 4111 1111 1111 1112 shipped'],
    ['a 16-digit id with an unknown prefix', 'ref 9111111111111111'],
    ['dates', 'due 2024-01-15, born 15.01.1990, on 01/15/2024 and 2024/1/5'],
    ['version strings and IPs', 'v1.2.3 build 4.15.0-112 host 192.168.100.200 and 10.0.0.1'],
    ['dotted numbers not grouped as a card is', 'oid 4.1111.1111.1111.111 and 41111.1111.1111.111 and 2024.0115.1230.4500'],
    ['dotted groups of four failing Luhn', 'serial 4111.1111.1111.1112'],
    ['plain numbers', 'order 123456789012 weighs 5551234567 grams'],
    ['an invalid IBAN checksum', 'IBAN DE88 3704 0044 0532 0130 00'],
    ['SSNs with invalid parts', '000-12-3456 666-12-3456 912-12-3456 123-00-4567 123-45-0000 078-05-1120'],
    ['an invalid NINO prefix', 'GB 12 34 56 C'],
    ['retina image names', 'logo@2x.png and icon@3x.webp'],
    ['a NANP number with a bad area code', 'call 155-555-0132'],
  ])('ignores %s', (_name, text) => {
    expect(scan(P, text)).toEqual({ value: 'false' });
  });

  it('masks values in evidence and spans them', () => {
    const text = 'pay with 4111 1111 1111 1111 please';
    const r = scan(P, text);
    expect(r.evidence).not.toContain('4111 1111 1111 1111');
    expect(r.evidence).toContain('4111…19');
    expect(r.spans).toEqual([{ field: 'content', start: 9, end: 28 }]);
  });

  it('restricts to the listed kinds; a card is not also a phone', () => {
    expect(scan({ type: 'pii', kinds: ['email'] }, 'card 4111 1111 1111 1111').value).toBe('false');
    expect(kinds('4111-1111-1111-1111')).toEqual(['card']);
  });

  it('checks Luhn and mod-97 directly', () => {
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
    expect(ibanValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanValid('GB82WEST12345698765433')).toBe(false);
  });

  it('is false when the field is absent and rejects bad kinds', () => {
    expect(compile({ type: 'pii', field: 'arguments.to' })(call({ body: 'a@b.example' })).value).toBe('false');
    expect(configError({ type: 'pii', kinds: ['passport'] }).code).toBe('detector_invalid_options');
  });

  it('bounds work on 5 MB of digits and text', () => {
    expect(compile(P)(call({ a: '4'.repeat(5_000_000), b: PAST_CAP })).value).toBe('unknown');
    expect(compile(P)(call({ a: '4'.repeat(500_000), b: BIG })).value).toBe('false');
  });
});
