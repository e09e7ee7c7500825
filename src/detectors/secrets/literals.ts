/**
 * The literals the secrets catalogue's prefilters look for, as lists the one-pass scanner (detectors/scan.ts) finds
 * together with the injection cues: each group is the literals of one expression of catalogue.ts (`re`, kept here
 * beside them), of which a text holds one exactly when the expression matches it. `caseSensitive`: the expression
 * has no `i` flag, so an occurrence the scanner finds (it folds case) is compared as written. A pure data module:
 * the scanner and the catalogue both import it. test/detectors/text-scan.test.ts checks every group against its
 * expression.
 */

export interface LiteralGroup {
  readonly re: RegExp;
  readonly literals: readonly string[];
  readonly caseSensitive: boolean;
}

const group = (re: RegExp, literals: string[]): LiteralGroup => ({ re, literals, caseSensitive: !re.flags.includes('i') });
const seps = (a: string, b: string): string[] => [`${a}_${b}`, `${a}-${b}`, `${a}${b}`];

/** `mayHoldSecret`'s literals (catalogue.ts DETECT_LITERALS). */
export const DETECT_GROUP = group(/p(?:ass(?:w|phrase)|wd)|secret|a(?:pi[_-]?key|ccess[_-]?token|uth[_-]?token|uthorization)|begin|bearer|eyj|:\/\//i, [
  'passw',
  'passphrase',
  'pwd',
  'secret',
  ...seps('api', 'key'),
  ...seps('access', 'token'),
  ...seps('auth', 'token'),
  'authorization',
  'begin',
  'bearer',
  'eyj',
  '://',
]);

/** The masker's literals (catalogue.ts MASK_PREFILTER). */
export const MASK_GROUP = group(
  /a(?:kia|sia|gpa|ida|roa|ipa|npa|nva|bia|cca|iza|pi[_-]?key|ccess[_-]?key|uthorization)|begin|sk-|[rs]k_|gh[pousr]_|github_pat_|xox|eyj|bearer|:\/\/|p(?:assw|wd|rivate[_-]?key)|s(?:ecret|ession[_-]?id)|token|c(?:redential|ookie)/i,
  [
    ...['kia', 'sia', 'gpa', 'ida', 'roa', 'ipa', 'npa', 'nva', 'bia', 'cca', 'iza'].map((x) => `a${x}`),
    ...seps('api', 'key'),
    ...seps('access', 'key'),
    'authorization',
    'begin',
    'sk-',
    'rk_',
    'sk_',
    ...['p', 'o', 'u', 's', 'r'].map((x) => `gh${x}_`),
    'github_pat_',
    'xox',
    'eyj',
    'bearer',
    '://',
    'passw',
    'pwd',
    ...seps('private', 'key'),
    'secret',
    ...seps('session', 'id'),
    'token',
    'credential',
    'cookie',
  ],
);

/** Each format's detect hint (catalogue.ts SECRET_FORMATS), by the hint's source. */
export const FORMAT_HINT_GROUPS: readonly LiteralGroup[] = [
  group(/AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T/, ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'AGPA', 'AIDA', 'AROA', 'ANPA', 'ANVA', 'AIPA', 'A3T']),
  group(/aws/i, ['aws']),
  group(/gh[pousr]_|github_pat_/, ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_']),
  group(/xox[abposr]-|hooks\.slack\.com/, [...['a', 'b', 'p', 'o', 's', 'r'].map((x) => `xox${x}-`), 'hooks.slack.com']),
  group(/[sr]k_(?:live|test)_/, ['sk_live_', 'sk_test_', 'rk_live_', 'rk_test_']),
  group(/AIza/, ['AIza']),
  group(/sk-ant-/, ['sk-ant-']),
  group(/sk-/, ['sk-']),
  group(/-----BEGIN /, ['-----BEGIN ']),
  group(/eyJ/, ['eyJ']),
  group(/bearer|authorization/i, ['bearer', 'authorization']),
  group(/passw|passphrase|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token/i, ['passw', 'passphrase', 'pwd', 'secret', ...seps('api', 'key'), ...seps('access', 'token'), ...seps('auth', 'token')]),
  group(/:\/\//, ['://']),
];

/** Every group the scanner answers, in a fixed order. */
export const SECRET_LITERAL_GROUPS: readonly LiteralGroup[] = [DETECT_GROUP, MASK_GROUP, ...FORMAT_HINT_GROUPS];
