import { segmentDensity, shannonEntropy } from '../../core/entropy.js';
import { mayHaveEscapes, mayHaveReadingsUnder, readingsOf, SECRET_READINGS, type ReadingLimits, type ReadingName } from '../../core/text/readings.js';
import { hasRunProbed, RUN_CLASS_BITS, RUN_CLASSES } from '../../core/text/runs.js';
import { scannedPrefix } from '../scan.js';
import { DETECT_GROUP, FORMAT_HINT_GROUPS, MASK_GROUP } from './literals.js';

/**
 * The one secrets catalogue: what the `secrets` detector reports and what the store masks before it keeps a text
 * (audit previews, rationales, URIs, approval requests). Masking is a superset of detection by construction —
 * `maskSpans` starts from `detectSpans` and adds broader forms — so the audit log can never keep in clear a
 * secret the guard detected. Both read one table, `SECRET_FORMATS`: a format of a kind is one row, with the form
 * the detector finds and the broader form the masker hides.
 *
 * The kinds the `secrets` detector reports.
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

/**
 * One format of a kind of credential: how the `secrets` detector finds it (`detect`), and the broader form the store's
 * masker hides on top of everything detected (`mask`): a key cut short by a capped text, a shorter token, a placeholder
 * value. Over-masking a preview costs nothing, a leaked key costs a rotation. Both consumers read this one table.
 */
export interface SecretFormat {
  kind: Exclude<SecretKind, 'high_entropy'>;
  /**
   * What the detector reports: `re`'s capture group 1 (2, 3), when present, is the secret itself (the rest is
   * context such as `password=`); `hint` is a literal every match contains (a text without it skips `re`; checked
   * against the full scan in tests); `check` filters near misses (it gets the secret and the whole match); `lead`
   * (default 0), how far after a match's start its hint can start at most: a long text is matched only from the
   * `lead` characters before each occurrence of the hint (`matchesAroundHints`).
   */
  detect: { re: RegExp; hint: RegExp; check?: (secret: string, whole: string) => boolean; lead?: number };
  /**
   * The form the masker hides as well (a `d`-flagged expression): `group`, the capture that is the secret (default
   * the whole match); `as`, the kind the mask names when it is not the row's (one `sk-` form covers two kinds);
   * `hint`, a literal every match contains, as `detect.hint` is for the detector's form (default: `detect.hint`,
   * where that one already is in every match of this form too); `spans`, when `re` is slow to run on some texts, what
   * its `group` gives for each match, found another way.
   */
  mask?: { re: RegExp; group?: number; as?: string; hint?: RegExp; spans?: (text: string) => Iterable<readonly [number, number]> };
  /**
   * The whole match is the credential, with no context around it: the detector also looks for it in the join of a
   * call's arguments (a key split between a file name and its content). A join glues unrelated values, which the
   * entropy and context rules would misread.
   */
  whole?: true;
}

/**
 * The values the `key = value` mask form (`password_assignment`'s) hides: its expression's group 1 for each match,
 * found key by key. The expression, tried at each key inside one run of `[A-Za-z0-9_-]` (`pwdpwdpwd…`), read the run
 * to its end from each before failing: 64 KB of `pwd` cost 1.3 s to mask. Every key in a run is followed by the same
 * rest of the run, so where the first key's run is not followed by `= value`, no later key in it is either: the
 * search goes on after the run. test/detectors/secrets-assigned-values.test.ts compares it with the expression.
 */
export function* assignedValues(text: string): Generator<readonly [number, number]> {
  for (let from = 0; ; ) {
    ASSIGNMENT_KEY.lastIndex = from;
    const key = ASSIGNMENT_KEY.exec(text);
    if (key === null) return;
    NAME_REST.lastIndex = key.index + key[0].length;
    NAME_REST.test(text);
    ASSIGNED.lastIndex = NAME_REST.lastIndex;
    const value = ASSIGNED.exec(text);
    if (value === null) from = NAME_REST.lastIndex;
    else {
      yield value.indices![1]!;
      from = ASSIGNED.lastIndex;
    }
  }
}

/** The keys the `key = value` mask form knows: its expression, its hint and `assignedValues` are built from this one list. */
const ASSIGNMENT_KEYS = 'passw(?:or)?d|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|credential|authorization|cookie|session[_-]?id';
const ASSIGNMENT_KEY = new RegExp(ASSIGNMENT_KEYS, 'gi');
const NAME_REST = /[A-Za-z0-9_-]*/y;
const ASSIGNED = /["']?\s*[:=]\s*["']?([^"'\s,;&}\]]{4,})/dy;

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

/** Whether a value given for a password is one: not a placeholder, a code reference, a path, or prose. */
export function passwordOk(value: string, whole: string): boolean {
  if (value.length < 4 || PLACEHOLDER.test(value) || CODE_REF.test(value) || PATH_VALUE.test(value)) return false;
  // Prose (`Password: please reset it`): after a bare `:`, a lower-case word is not taken for a password.
  if (/^[a-z]+$/.test(value) && /:\s*[a-z]+$/.test(whole)) return false;
  return true;
}

const B = '(?<![A-Za-z0-9_])';
const E = '(?![A-Za-z0-9_])';

/** The one table of credential formats, in the detector's order (an earlier format's span wins an overlap). */
export const SECRET_FORMATS: readonly SecretFormat[] = [
  {
    kind: 'aws_access_key',
    detect: { hint: /AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T/, re: new RegExp(`${B}((?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|A3T[A-Z0-9])[A-Z0-9]{16})${E}`, 'g') },
    mask: { re: /(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Z0-9])/dg },
    whole: true,
  },
  {
    kind: 'aws_secret_key',
    detect: { hint: /aws/i, re: /aws.{0,24}?(?:secret|sk)\w*["']?\s*[:=]\s*["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi, check: hasDigitAndLetter },
  },
  {
    kind: 'github_token',
    detect: { hint: /gh[pousr]_|github_pat_/, re: new RegExp(`${B}((?:gh[pousr]_[A-Za-z0-9]{36,251})|(?:github_pat_[A-Za-z0-9_]{22,251}))${E}`, 'g') },
    mask: { re: /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/dg },
    whole: true,
  },
  {
    kind: 'slack_token',
    detect: { hint: /xox[abposr]-|hooks\.slack\.com/, re: /(?<![A-Za-z0-9])(xox[abposr]-[A-Za-z0-9-]{10,200}|https:\/\/hooks\.slack\.com\/services\/T[A-Z0-9]+\/B[A-Z0-9]+\/[A-Za-z0-9]{16,})/g, check: hasDigitAndLetter, lead: 'https://'.length },
    mask: { re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/dg },
    whole: true,
  },
  {
    kind: 'stripe_key',
    detect: { hint: /[sr]k_(?:live|test)_/, re: new RegExp(`${B}((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,247})${E}`, 'g'), check: hasDigitAndLetter },
    mask: { re: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/dg },
    whole: true,
  },
  {
    kind: 'google_api_key',
    detect: { hint: /AIza/, re: new RegExp(`${B}(AIza[0-9A-Za-z_-]{35})(?![A-Za-z0-9_-])`, 'g') },
    mask: { re: /\bAIza[0-9A-Za-z_-]{30,}/dg },
    whole: true,
  },
  {
    kind: 'anthropic_key',
    detect: { hint: /sk-ant-/, re: /(?<![A-Za-z0-9_-])(sk-ant-[A-Za-z0-9_-]{20,300})(?![A-Za-z0-9_-])/g, check: hasDigitAndLetter },
    whole: true,
  },
  {
    kind: 'openai_key',
    detect: {
      hint: /sk-/,
      re: /(?<![A-Za-z0-9_-])(sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,300})(?![A-Za-z0-9_-])/g,
      // Real keys mix digits and letters; `sk-this-is-a-hyphenated-name` does not.
      check: (s) => hasDigitAndLetter(s.slice(3)) && /[A-Z]/.test(s) && /[a-z]/.test(s.slice(3)),
    },
    // Every `sk-` key, Anthropic's included.
    mask: { re: /\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_-]{16,}/dg, as: 'api_key' },
    whole: true,
  },
  {
    kind: 'private_key',
    detect: { hint: /-----BEGIN /, re: /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,16384}?-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----)?/g },
    // A PEM private key cut before its END line (a capped text) is masked to the end; `BEGIN` need not be followed
    // by a space here.
    mask: { re: /-----BEGIN[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|$)/dg, hint: /-----BEGIN/ },
    whole: true,
  },
  {
    kind: 'jwt',
    detect: { hint: /eyJ/, re: /(?<![A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{8,2048}\.eyJ[A-Za-z0-9_-]{2,8192}\.[A-Za-z0-9_-]{0,2048})(?![A-Za-z0-9_-])/g, check: jwtHeaderOk },
    // JWTs, also cut ones (header.payload without a signature).
    mask: { re: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*)?/dg },
    whole: true,
  },
  {
    kind: 'bearer_token',
    detect: {
      hint: /bearer|authorization/i,
      // `Authorization: Bearer|Token|Basic …` in a header, or a bare `Bearer …`.
      re: /(?:\b(?:authorization|proxy-authorization)\b["']?\s*[:=]\s*["']?(?:Bearer|Token|Basic)|\bBearer)\s+([A-Za-z0-9._~+/=-]{16,4096})/gi,
      check: hasDigitAndLetter,
      lead: 'proxy-'.length,
    },
    mask: { re: /\bBearer\s+([A-Za-z0-9._~+/=-]{8,})/dg, group: 1 },
  },
  {
    kind: 'password_assignment',
    detect: {
      hint: /passw|passphrase|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token/i,
      re: /(?<![A-Za-z0-9])[A-Za-z0-9_.-]{0,40}(?:password|passwd|passphrase|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)["']?\s{0,4}(?:=|:=|:|=>)\s{0,4}(?:"([^"\s]{4,256})"|'([^'\s]{4,256})'|([^\s"',;&)}\]]{4,256}))/gi,
      check: passwordOk,
      // 40 name characters, then `client_` before `secret`.
      lead: 40 + 'client_'.length,
    },
    // key = value / "key": "value" with a secret-sounding key, placeholders included.
    mask: {
      re: new RegExp(`(?:${ASSIGNMENT_KEYS})${NAME_REST.source}${ASSIGNED.source}`, 'dgi'),
      group: 1,
      hint: new RegExp(ASSIGNMENT_KEYS, 'i'),
      spans: assignedValues,
    },
  },
  {
    kind: 'password_assignment',
    // URL credentials: scheme://user:password@host
    detect: { hint: /:\/\//, re: /\b[a-z][a-z0-9+.-]{1,15}:\/\/[^\s/:@]{1,128}:([^\s/@]{3,256})@[A-Za-z0-9.-]+/gi, check: passwordOk, lead: 16 },
    mask: { re: /(?<=:\/\/)[^\s/:@"']+:([^\s@"'/]+)@/dg, group: 1 },
  },
];

/** The known formats whose whole match is the credential (`SecretFormat.whole`). */
export const WHOLE_MATCH_KINDS: ReadonlySet<SecretKind> = new Set(SECRET_FORMATS.filter((f) => f.whole).map((f) => f.kind));

const TOKEN_RE = /[A-Za-z0-9+_=-]{20,}/g;
const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const MAX_TOKEN = 200;
const BLOB_RE = /(?:\bsha(?:1|256|384|512)-|;base64,)[A-Za-z0-9+/=_-]+|[A-Za-z0-9+/]{200,}={0,2}/g;
/** Random-looking but public by design: Stripe publishable keys. */
const PUBLIC_TOKEN = /^pk_(?:live|test)_/;

/** A generic high-entropy token, by the rules in the `secrets` detector's doc comment. */
export function looksRandom(token: string, minEntropy: number): boolean {
  if (token.length < 20 || token.length > MAX_TOKEN) return false;
  // Hex (hashes, SHAs) and prefixed hex ids (`ap_3f9c…`, `req-9a1b…`) are identifiers, not keys.
  if (/^(?:[A-Za-z]{1,8}[_-])?[0-9a-fA-F]+$/.test(token) || UUID_RE.test(token) || PUBLIC_TOKEN.test(token)) return false;
  if (!/\d/.test(token) || !/[A-Za-z]/.test(token)) return false;
  // Slugs: pieces between `-`/`_` that are words, numbers or short (`OWASP-Top-10-for-LLMs-2023-slides-v1_0`).
  const pieces = token.split(/[-_]+/);
  if (pieces.length > 1 && pieces.every((p) => p.length <= 3 || /^(?:[A-Za-z]+|\d+)$/.test(p))) return false;
  if (/[a-z]{7,}/.test(token) || segmentDensity(token) < 0.4) return false;
  return shannonEntropy(token) >= minEntropy;
}

/** A secret in a text: `[start, end)` offsets of the secret itself (not its `password=` context) and its kind. */
export interface SecretSpan {
  start: number;
  end: number;
  kind: string;
}

export interface DetectOptions {
  /** Kinds to look for (default: all). */
  kinds?: ReadonlySet<SecretKind>;
  /** Entropy threshold of `high_entropy` tokens, bits per character (default 3.5). */
  minEntropy?: number;
  /** Stop after this many spans (default: no limit). */
  limit?: number;
}

export const DEFAULT_MIN_ENTROPY = 3.5;

/**
 * What every pattern above needs at least one of: a run of 15+ token characters (every key format and the
 * high-entropy rule), or one of the literals of the context-bound forms (`password=`, `Bearer`, PEM, JWT, URL
 * credentials). A text without any cannot hold a detected secret, so most short strings (argument names, paths,
 * prose) cost one linear scan instead of one per pattern. `test/detectors/secrets-catalogue.test.ts` checks the
 * claim against the full scan on generated texts.
 *
 * Written as one expression (`[A-Za-z0-9+/_=-]{15}|passw|…`, the form the tests keep as the reference) it cost three
 * times as much on prose: the 15-character run, tried from every position, re-reads each word up to 15 times. The
 * run is looked for by probing every fifteenth character (`hasRunProbed`: a run of 15 covers one; it was an
 * expression tried where each maximal run starts, which still read every character, twice per long read's audit
 * mask); the literals are grouped by their first letter. The two answer exactly what the one expression answers
 * (compared in the same test file).
 */
const DETECT_LITERALS = DETECT_GROUP.re;

/**
 * False when `text` cannot hold any secret `detectSpans` finds (a token run of 15, or DETECT_LITERALS). A long text
 * is asked through its one-pass scan (detectors/scan.ts), which answers the same.
 */
export function mayHoldSecret(text: string): boolean {
  if (text.length < 4) return false;
  const s = scannedPrefix(text);
  return s ? s.scan.holds(DETECT_GROUP, s.to) || s.scan.hasRun('secret-token', 15, 0, s.to) : DETECT_LITERALS.test(text) || hasRunProbed(text, 'secret-token', 15);
}

/** Each format's hint as a literal group of the scanner (secrets/literals.ts), by the hint's source. */
const HINT_GROUP = new Map(FORMAT_HINT_GROUPS.map((g) => [g.re.source, g]));

/** `hint.test(text)`, asked of the text's scan when it has one. */
function hinted(hint: RegExp, text: string, s: ReturnType<typeof scannedPrefix>): boolean {
  const group = s && HINT_GROUP.get(hint.source);
  return group ? s!.scan.holds(group, s!.to) : hint.test(text);
}

/** `MASK_PREFILTER.test(text)`, asked of the text's scan when it has one. */
function maskHinted(text: string): boolean {
  const s = scannedPrefix(text);
  return s ? s.scan.holds(MASK_GROUP, s.to) : MASK_PREFILTER.test(text);
}

/** Every secret of the catalogue's kinds in `text`, non-overlapping, in pattern order then text order. */
export function detectSpans(text: string, opts: DetectOptions = {}): SecretSpan[] {
  return mayHoldSecret(text) ? scanSpans(text, opts) : [];
}

/** `detectSpans` without the prefilter (exported for the tests that check the prefilter and the hints lose nothing). */
export function scanSpans(text: string, opts: DetectOptions = {}, useHints = true): SecretSpan[] {
  const kinds = opts.kinds;
  const limit = opts.limit ?? Number.POSITIVE_INFINITY;
  const spans: SecretSpan[] = [];
  const overlaps = (s: number, e: number): boolean => spans.some((x) => s < x.end && e > x.start);
  const scan = useHints ? scannedPrefix(text) : undefined;
  const around = useHints && text.length >= AROUND_HINTS_MIN_CHARS;
  for (const { kind, detect: p } of SECRET_FORMATS) {
    if ((kinds && !kinds.has(kind)) || (useHints && !hinted(p.hint, text, scan))) continue;
    p.re.lastIndex = 0;
    for (const m of around ? matchesAroundHints(text, p.re, p.hint, p.lead ?? 0) : text.matchAll(p.re)) {
      const secret = m[1] ?? m[2] ?? m[3] ?? m[0];
      if (p.check && !p.check(secret, m[0])) continue;
      const start = m.index + m[0].lastIndexOf(secret);
      const end = start + secret.length;
      if (overlaps(start, end)) continue;
      spans.push({ start, end, kind });
      if (spans.length >= limit) return spans;
    }
  }
  if (kinds && !kinds.has('high_entropy')) return spans;
  const minEntropy = opts.minEntropy ?? DEFAULT_MIN_ENTROPY;
  // Subresource-integrity hashes, `data:` URIs and long base64 blobs are encodings, not credentials.
  tokensOutsideBlobs(text, blobSpans(text), (start, end) => {
    if (end - start > MAX_TOKEN || overlaps(start, end) || !looksRandom(text.slice(start, end), minEntropy)) return false;
    spans.push({ start, end, kind: 'high_entropy' });
    return spans.length >= limit;
  });
  return spans;
}

/**
 * From this length, a format's expression is tried only where a match can start (`matchesAroundHints`): the
 * expressions that start with a run of name or scheme characters (`password=`, URL credentials) are otherwise tried
 * from every position of the text (~10 ns a character each, in V8).
 */
export const AROUND_HINTS_MIN_CHARS = 4096;

/** The clones of an expression `matchesAroundHints` uses: every occurrence of a hint, a match tried at one place. */
const clones = new Map<RegExp, { every: RegExp; at: RegExp }>();
function clonesOf(re: RegExp, hint: RegExp): { every: RegExp; at: RegExp } {
  let c = clones.get(re);
  if (c === undefined) clones.set(re, (c = { every: new RegExp(hint.source, `${hint.flags.replace('g', '')}g`), at: new RegExp(re.source, `${re.flags.replace('g', '')}y`) }));
  return c;
}

/**
 * `[...text.matchAll(re)]`, found only where a match can start: every match holds an occurrence of `hint` that
 * starts at most `lead` characters after the match does (the format's `lead`), so `re` is tried, anchored, at the
 * `lead + 1` places up to each occurrence (every place the hint matches, overlapping ones included), in text order,
 * each place once, and from the end of each match on (as `matchAll` goes on from there). The leftmost match at or
 * after that end starts at one of those places, so the matches are the same. Exported for the property test.
 */
export function matchesAroundHints(text: string, re: RegExp, hint: RegExp, lead: number): RegExpExecArray[] {
  const { every, at } = clonesOf(re, hint);
  const out: RegExpExecArray[] = [];
  // `matchAll`'s position: no match starts before it. `tried`: places before it were tried (or lie before `next`).
  let next = 0;
  let tried = 0;
  every.lastIndex = 0;
  for (let h = every.exec(text); h !== null; h = every.exec(text)) {
    const occurrence = h.index;
    every.lastIndex = occurrence + 1;
    for (let q = Math.max(occurrence - lead, tried, next); q <= occurrence; ) {
      at.lastIndex = q;
      const m = at.exec(text);
      if (m === null) {
        q++;
        continue;
      }
      out.push(m);
      next = Math.max(m.index + m[0].length, q + 1);
      q = next;
    }
    tried = Math.max(tried, occurrence + 1);
  }
  return out;
}

/**
 * The matches of BLOB_RE in `text`, as `[start, end)`. Each needs the literal `sha` (of `sha256-`) or `;base64,`, or a
 * run of 200 characters: a shorter text without either holds none and is not searched. The run alternative, tried
 * from every position of every run of token characters, was a third of the secrets scan of a short argument value.
 * Exported for the test that compares it with every match.
 */
export function blobSpans(text: string): Array<[number, number]> {
  const blobs: Array<[number, number]> = [];
  if (text.length < 200 && !text.includes('sha') && !text.includes(';base64,')) return blobs;
  BLOB_RE.lastIndex = 0;
  for (const m of text.matchAll(BLOB_RE)) blobs.push([m.index, m.index + m[0].length]);
  return blobs;
}

/** Characters of TOKEN_RE, by char code. */
const TOKEN_RE_CHAR = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+_=-') TOKEN_RE_CHAR[c.charCodeAt(0)] = 1;
const isTokenReChar = (c: number): boolean => c < 128 && TOKEN_RE_CHAR[c] === 1;

/**
 * Each match `[start, end)` of TOKEN_RE in `text` that overlaps none of `blobs` (sorted, disjoint), in order, until
 * `found` returns true. Matches are whole runs of TOKEN_RE's characters (to the right), so every match that starts
 * before a blob's end and reaches it is passed over at once: the search goes on from the end of the token run that
 * crosses the blob's end (a megabyte of base64 is one blob holding some 20,000 matches, one between each two `/`).
 * Each search stops at the next blob's start (a search of the whole text read a base64 result's run to its end to
 * find the one match the blob then passed over). Exported for the test that compares it with every match filtered.
 */
export function tokensOutsideBlobs(text: string, blobs: ReadonlyArray<readonly [number, number]>, found: (start: number, end: number) => boolean): void {
  let b = 0;
  let from = 0;
  for (;;) {
    while (b < blobs.length && blobs[b]![1] <= from) b++;
    const blob = blobs[b];
    if (blob !== undefined && blob[0] <= from) {
      from = runEndPast(text, blob[1]);
      continue;
    }
    const stop = blob === undefined ? text.length : blob[0];
    TOKEN_RE.lastIndex = from;
    const m = TOKEN_RE.exec(stop === text.length ? text : text.slice(0, stop));
    if (m === null) {
      // Any match before the blob's end goes on into it.
      if (blob === undefined) return;
      from = runEndPast(text, blob[1]);
      continue;
    }
    const start = m.index;
    const end = start + m[0].length;
    if (end === stop && isTokenReChar(text.charCodeAt(stop))) {
      // Cut at the blob's start: the whole match goes on into the blob.
      from = runEndPast(text, blob![1]);
      continue;
    }
    if (found(start, end)) return;
    from = end;
  }
}

/** Where the token run that crosses a blob's end `at` ends (`at` when the blob's last character is not in one). */
function runEndPast(text: string, at: number): number {
  let next = at;
  if (isTokenReChar(text.charCodeAt(next - 1))) while (next < text.length && isTokenReChar(text.charCodeAt(next))) next++;
  return next;
}

/**
 * Literals every mask form (`SecretFormat.mask`) needs (case-insensitive superset): text without any skips that pass. Grouped by
 * first letter (a third cheaper than the flat list `BEGIN|AKIA|…|session[_-]?id`, which the tests keep as the reference; exported for them).
 */
export const MASK_PREFILTER = MASK_GROUP.re;

const MASK_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The masker's looser high-entropy rule: mixed character classes and high entropy, words allowed. */
function looksRandomLoose(token: string): boolean {
  if (MASK_UUID.test(token)) return false;
  const classes = Number(/[0-9]/.test(token)) + Number(/[a-z]/.test(token)) + Number(/[A-Z]/.test(token));
  if (classes < 2) return false;
  return shannonEntropy(token) >= (classes === 3 ? 3.6 : 3.9);
}

/** Token characters of the loose entropy rule: A–Z a–z 0–9 + / _ - (base64, base64url, hex), runs.ts's `base64` class. */
const LOOSE_TOKEN_BIT = 1 << RUN_CLASSES.indexOf('base64');
/** A table, not a chain of comparisons: a 1.3 MB base64 result is one run, read character by character. */
const isTokenChar = (c: number): boolean => c < 128 && (RUN_CLASS_BITS[c]! & LOOSE_TOKEN_BIT) !== 0;

/** Long high-entropy runs of token characters (24+), in one linear scan. */
function looseEntropySpans(text: string, out: SecretSpan[]): void {
  const n = text.length;
  for (let i = 0; i < n; i++) {
    if (!isTokenChar(text.charCodeAt(i))) continue;
    const start = i;
    while (i < n && isTokenChar(text.charCodeAt(i))) i++;
    if (i - start >= 24) {
      let end = i;
      while (end < n && end - i < 2 && text.charCodeAt(end) === 61) end++; // base64 '=' padding
      if (looksRandomLoose(text.slice(start, i))) out.push({ start, end, kind: 'high_entropy' });
    }
  }
}

/**
 * The rows of SECRET_READINGS whose test needs an escape character or `://` (`mayHaveEscapes`: the plain reading's
 * non-ASCII, `&` and `\`, the URL rows' `%`, `+` and `://`) or a run of 15 token characters (`mayHoldSecret`'s run, which
 * holds every run the base64, hex and base32 rows start from: 16 characters of base64, 40 of wrapped base64 lines, 16
 * base32 digits, all token characters). Exported for the test of that claim.
 */
export const ESCAPE_OR_RUN_ROWS: ReadonlySet<ReadingName> = new Set(['plain', 'url-parts', 'url', 'base64', 'hex', 'base32']);
/**
 * SECRET_READINGS's rows that can apply to a text with neither: `mayHaveReadingsUnder` of such a text under these
 * answers what it answers under SECRET_READINGS (test/detectors/secrets-unescaped-rows.test.ts), without the pass that
 * finds where the escapes' and runs' readings start (`readingStarts`, a read of a long text's whole window).
 */
const UNESCAPED_RUNLESS_READINGS: ReadingLimits = { ...SECRET_READINGS, rows: SECRET_READINGS.rows.filter((r) => !ESCAPE_OR_RUN_ROWS.has(r)) };

/**
 * What the store masks: every detected secret (`detectSpans`, all kinds) plus the broader mask forms (`SecretFormat.mask`), sorted
 * and merged where they overlap.
 */
export function maskSpans(text: string): SecretSpan[] {
  // Every mask form needs a MASK_PREFILTER literal, and the loose entropy rule a 24-character token run,
  // which the detector's prefilter (a 15-character run) already looks for.
  // Without a 15-character token run there is no base64 or hex run to decode: only escapes can hide a credential.
  const hinted = maskHinted(text);
  if (!hinted && !mayHoldSecret(text)) return mayHaveEscapes(text) || mayHaveReadingsUnder(text, UNESCAPED_RUNLESS_READINGS) ? encodedMaskSpans(text, []) : [];
  return encodedMaskSpans(text, scanPlainMaskSpans(text, hinted));
}

/** The known formats (every kind but `high_entropy`): what the `secrets` detector looks for in a text's readings. */
export const ENCODED_KINDS: ReadonlySet<SecretKind> = new Set(SECRET_KINDS.filter((k) => k !== 'high_entropy'));

/**
 * The first credential of `kinds` (default: the known formats) in `readings`, a text's other readings (`unwrapViews`:
 * escapes, full-width and zero-width forms undone, URL, base64 and hex decoded), with the reading it is in. The
 * detector and the masker both look for encoded credentials through this.
 */
export function firstInReadings(readings: readonly string[], kinds: ReadonlySet<SecretKind> = ENCODED_KINDS, minEntropy?: number): { reading: string; span: SecretSpan } | undefined {
  for (const reading of readings) {
    const span = detectSpans(reading, { kinds, limit: 1, ...(minEntropy !== undefined ? { minEntropy } : {}) })[0];
    if (span !== undefined) return { reading, span };
  }
  return undefined;
}

/**
 * `spans`, or the whole text when one of its readings holds a credential the spans do not already show masked in
 * clear form: the detector finds encoded credentials, so the masker must hide them (no offsets map back).
 */
function encodedMaskSpans(text: string, spans: SecretSpan[]): SecretSpan[] {
  // Read with the spans already masked blanked out, so a credential in clear does not mask the whole text.
  let rest = text;
  for (let i = spans.length - 1; i >= 0; i--) rest = `${rest.slice(0, spans[i]!.start)} ${rest.slice(spans[i]!.end)}`;
  if (!mayHaveReadingsUnder(rest, SECRET_READINGS)) return spans;
  const readings = readingsOf(rest, SECRET_READINGS);
  // A reading left unread may hold a credential: the whole text is masked.
  if (readings.unread !== undefined) return [{ start: 0, end: text.length, kind: 'unread_encoding' }];
  const found = firstInReadings(readings.views.slice(1));
  return found === undefined ? spans : [{ start: 0, end: text.length, kind: found.span.kind }];
}

/** `maskSpans` without its early exit (exported for the test that checks the exit loses nothing). */
export function scanMaskSpans(text: string): SecretSpan[] {
  return encodedMaskSpans(text, scanPlainMaskSpans(text, maskHinted(text)));
}

/**
 * Below this length a mask form runs only where its hint is: the prefilter lets a text through on any one literal,
 * and a form's run (a `matchAll`, which clones its expression) costs more there than its hint's test. From about
 * 1,000 characters on, the hints' own passes cost as much as the forms they skip, and every form runs.
 */
const MASK_HINTS_BELOW = 1024;

/** The mask spans of the text as it is; `withHints`, `maskHinted(text)` (a pass over a long text, asked once). */
function scanPlainMaskSpans(text: string, withHints: boolean): SecretSpan[] {
  const spans = scanSpans(text);
  if (withHints) {
    const gated = text.length < MASK_HINTS_BELOW;
    for (const { kind, mask: p, detect } of SECRET_FORMATS) {
      if (p === undefined || (gated && !(p.hint ?? detect.hint).test(text))) continue;
      if (p.spans !== undefined) {
        for (const [start, end] of p.spans(text)) spans.push({ start, end, kind: p.as ?? kind });
        continue;
      }
      p.re.lastIndex = 0;
      for (const m of text.matchAll(p.re)) {
        const at = m.indices?.[p.group ?? 0];
        if (at) spans.push({ start: at[0], end: at[1], kind: p.as ?? kind });
      }
    }
  }
  looseEntropySpans(text, spans);
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretSpan[] = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last && s.start <= last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged;
}
