import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assignedValues, SECRET_FORMATS } from '../../src/detectors/secrets/catalogue.js';
import { maskSecrets } from '../../src/store/redact.js';
import { expectSameOnTexts } from './support/injection-texts.js';

/**
 * The `key = value` mask form's values found key by key (`assignedValues`) are its expression's group 1 for every
 * match: on the corpora, the red-team and dev texts, and generated texts of keys (in any case), name characters,
 * quotes, spaces, `:` and `=`, values and the characters that end one. A run of keys with no `= value` after it is
 * read once (the expression read it again from each key).
 */
const form = SECRET_FORMATS.find((f) => f.mask?.spans === assignedValues)!.mask!;
const expected = (t: string): Array<readonly [number, number]> => [...t.matchAll(new RegExp(form.re.source, form.re.flags))].map((m) => m.indices![form.group ?? 0]!);

const PIECES = ['password', 'PassWord', 'passwd', 'passw', 'pwd', 'secret', 'token', 'api_key', 'api-key', 'apikey', 'access_key', 'private-key', 'credential', 'authorization', 'Cookie', 'session_id', 'sessionid', 'db_', 'x', '9', '_', '-', '"', "'", ' ', '  ', '\n', '\t', ':', '=', ':=', '=>', 'abcd', 'hunter22', 's3cr3t!', ',', ';', '&', '}', ']', '.', '/', 'é'];
const generated = fc.array(fc.constantFrom(...PIECES), { maxLength: 24 }).map((p) => p.join(''));

describe("the key = value mask form's values, key by key", () => {
  it('are the expression’s on the corpora, the red-team and dev texts and generated texts', () => {
    const extra = 'password=hunter22 and api_key: "abcdef" then db_password = \'s3cret\'';
    const found = expectSameOnTexts((t) => [...assignedValues(t)], expected, generated, { hit: (t) => expected(t).length > 0, extra: [extra] });
    expect(found).toBeGreaterThan(1_000);
    expect(expected(extra)).toHaveLength(3);
  });

  it('reads a long run of keys with no value after it once', () => {
    const text = `${'pwd'.repeat(100_000)} then cookie=abcdef ${'tokensecret'.repeat(20_000)}:`;
    expect([...assignedValues(text)]).toEqual([[300_013, 300_019]]);
    expect(maskSecrets(`${'pwd'.repeat(30_000)} cookie=abcdef`)).toBe(`${'pwd'.repeat(30_000)} cookie=[REDACTED:password_assignment]`);
  });
});
