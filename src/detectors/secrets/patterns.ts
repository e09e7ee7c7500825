/**
 * The credential formats the `secrets` detector knows, one regular expression each. A pattern's capture group 1,
 * when present, is the secret itself (the rest is context such as `password=`); `check` filters near misses.
 */
export const SECRET_KINDS = [
  'aws_access_key',
  'aws_secret_key',
  'github_token',
  'slack_token',
  'stripe_key',
  'google_api_key',
  'openai_key',
  'anthropic_key',
  'private_key',
  'jwt',
  'bearer_token',
  'password_assignment',
  'high_entropy',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export interface SecretPattern {
  kind: Exclude<SecretKind, 'high_entropy'>;
  re: RegExp;
  /** Near-miss filter; gets the secret and the whole match (context such as `password:`). */
  check?: (secret: string, whole: string) => boolean;
}

const hasDigitAndLetter = (s: string): boolean => /\d/.test(s) && /[A-Za-z]/.test(s);

/** A JWT header must decode to a JSON object naming an algorithm. */
function jwtHeaderOk(token: string): boolean {
  const head = token.split('.', 1)[0] ?? '';
  try {
    const json: unknown = JSON.parse(Buffer.from(head, 'base64url').toString('utf8'));
    return typeof json === 'object' && json !== null && typeof (json as Record<string, unknown>).alg === 'string';
  } catch {
    return false;
  }
}

/** Values that are placeholders, not passwords: `password: string`, `password=${PW}`, `pwd=<secret>`, `****`. */
const PLACEHOLDER =
  /^(?:[*xX•.]+|[$%<{[(].*|null|none|nil|undefined|true|false|string|str|password|passwd|secret|required|optional|empty|redacted|changeme|example|your[_-]?\w*|process\.env.*|os\.environ.*|env\(.*)$/i;

/** Code references (`config.apiKey`, `req.body.password`) and calls (`getenv(…)`) are not values. */
const CODE_REF = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$|[()[\]]/;
/** Paths are not passwords (`PWD=/home/me`, `OLDPWD=~/src` in environment listings). */
const PATH_VALUE = /^(?:\/|~\/|\.\.?\/)/;

/** Argument names that hold a password or key (`arguments.db.password`, `arguments.api_key`). */
export const SECRET_KEY_NAME = /(?:password|passwd|passphrase|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)$/i;

export function passwordOk(value: string, whole: string): boolean {
  if (value.length < 4 || PLACEHOLDER.test(value) || CODE_REF.test(value) || PATH_VALUE.test(value)) return false;
  // Prose (`Password: please reset it`): after a bare `:`, a lower-case word is not taken for a password.
  if (/^[a-z]+$/.test(value) && /:\s*[a-z]+$/.test(whole)) return false;
  return true;
}

const B = '(?<![A-Za-z0-9_])';
const E = '(?![A-Za-z0-9_])';

export const SECRET_PATTERNS: SecretPattern[] = [
  { kind: 'aws_access_key', re: new RegExp(`${B}((?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[A-Z0-9]{16})${E}`, 'g') },
  {
    kind: 'aws_secret_key',
    re: /aws.{0,24}?(?:secret|sk)\w*["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
    check: hasDigitAndLetter,
  },
  {
    kind: 'github_token',
    re: new RegExp(`${B}((?:gh[pousr]_[A-Za-z0-9]{36,251})|(?:github_pat_[A-Za-z0-9_]{22,251}))${E}`, 'g'),
  },
  { kind: 'slack_token', re: /(?<![A-Za-z0-9])(xox[abposr]-[A-Za-z0-9-]{10,200}|https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]{16,})/g, check: hasDigitAndLetter },
  { kind: 'stripe_key', re: new RegExp(`${B}((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247})${E}`, 'g'), check: hasDigitAndLetter },
  { kind: 'google_api_key', re: new RegExp(`${B}(AIza[0-9A-Za-z_-]{35})(?![A-Za-z0-9_-])`, 'g') },
  { kind: 'anthropic_key', re: /(?<![A-Za-z0-9_-])(sk-ant-[A-Za-z0-9_-]{20,300})(?![A-Za-z0-9_-])/g, check: hasDigitAndLetter },
  {
    kind: 'openai_key',
    re: /(?<![A-Za-z0-9_-])(sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,300})(?![A-Za-z0-9_-])/g,
    // Real keys mix digits and letters; `sk-this-is-a-hyphenated-name` does not.
    check: (s) => hasDigitAndLetter(s.slice(3)) && /[A-Z]/.test(s) && /[a-z]/.test(s.slice(3)),
  },
  { kind: 'private_key', re: /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,16384}?-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----)?/g },
  {
    kind: 'jwt',
    re: /(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,2048}\.eyJ[A-Za-z0-9_-]{2,8192}\.[A-Za-z0-9_-]{0,2048})(?![A-Za-z0-9_-])/g,
    check: jwtHeaderOk,
  },
  {
    kind: 'bearer_token',
    // `Authorization: Bearer|Token|Basic …` in a header, or a bare `Bearer …`.
    re: /(?:\b(?:authorization|proxy-authorization)\b["']?\s*[:=]\s*["']?(?:Bearer|Token|Basic)|\bBearer)\s+([A-Za-z0-9._~+/=-]{16,4096})/gi,
    check: hasDigitAndLetter,
  },
  {
    kind: 'password_assignment',
    re: /(?<![A-Za-z0-9])[A-Za-z0-9_.-]{0,40}(?:password|passwd|passphrase|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)["']?\s{0,4}(?:=|:=|:|=>)\s{0,4}(?:"([^"\s]{4,256})"|'([^'\s]{4,256})'|([^\s"',;&)}\]]{4,256}))/gi,
    check: passwordOk,
  },
  { kind: 'password_assignment', re: /\b[a-z][a-z0-9+.-]{1,15}:\/\/[^\s/:@]{1,128}:([^\s/@]{3,256})@[A-Za-z0-9.-]+/gi, check: passwordOk },
];
