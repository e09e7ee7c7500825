import { z } from 'zod';
import { defineDetector } from '../registry.js';
import { FieldSelectorSchema, fromFindings, cutOrNo, inspectedFields, mask, MAX_SPANS, type Finding } from '../common.js';
import { segmentDensity, shannonEntropy } from '../../core/entropy.js';
import { passwordOk, SECRET_KEY_NAME, SECRET_KINDS, SECRET_PATTERNS, type SecretKind } from './patterns.js';

/**
 * `secrets`: credentials in the selected text.
 *
 * - `kinds` (default: all): `aws_access_key`, `aws_secret_key` (40 chars after an `aws…secret` key name),
 *   `github_token` (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), `slack_token` (`xox?-`, webhook URLs),
 *   `stripe_key` (`sk_live_`, `rk_test_`…; publishable `pk_` keys are not secrets), `google_api_key` (`AIza…`),
 *   `openai_key` (`sk-…`, `sk-proj-…`), `anthropic_key` (`sk-ant-…`), `private_key` (PEM `BEGIN … PRIVATE KEY`
 *   blocks), `jwt` (three base64url parts whose header decodes to JSON with `alg`), `bearer_token`
 *   (`Authorization: Bearer|Basic|Token …`, bare `Bearer …`), `password_assignment` (`password=…`, `DB_PASSWORD: …`,
 *   `api_key = "…"`, `scheme://user:pass@host`, and a whole argument value whose name is password-like, e.g.
 *   `arguments.db.password`; placeholders such as `${PW}`, `<secret>`, `****`, `string`,
 *   code references `config.password` and paths (`PWD=/home/me`) are ignored), `high_entropy`.
 * - `high_entropy`: tokens of 20–200 characters from `[A-Za-z0-9+_=-]` (split at `/`, `.`, `:` and everything
 *   else, so paths and URLs never join into one token) that mix letters and digits, hold no run of 7+ lower-case
 *   letters (a word), cut into many short segments (`segmentDensity` ≥ 0.4; identifiers such as
 *   `getUserAccountById2` stay below) and have Shannon entropy ≥ `min_entropy` bits/char (default 3.5).
 *   Excluded: pure hex strings (git SHAs, MD5/SHA hashes, and also hex-only secrets), UUIDs, Stripe publishable
 *   keys (`pk_live_…`), slugs whose `-`/`_` pieces are words, numbers or ≤ 3 characters
 *   (`OWASP-Top-10-for-LLMs-2023`), and anything inside encodings: `sha512-…` integrity hashes,
 *   `data:…;base64,` URIs, base64 runs of 200+ characters.
 * - `field` (default `any`); a missing field is `false`.
 *
 * Inspects every field to its end (8 MiB in all; beyond it, nothing found is `unknown`). Evidence shows each caught secret masked (`ghp_…40`), never in
 * clear; spans cover the secrets themselves (not `password=`), for redaction.
 *
 * @example { type: secrets, field: arguments, kinds: [aws_access_key, private_key, github_token] }
 */
export const SecretsOptionsSchema = z.strictObject({
  field: FieldSelectorSchema.default('any'),
  kinds: z.array(z.enum(SECRET_KINDS)).min(1).optional(),
  min_entropy: z.number().min(0).max(8).default(3.5),
});
export type SecretsOptions = z.infer<typeof SecretsOptionsSchema>;

const TOKEN_RE = /[A-Za-z0-9+_=-]{20,}/g;
const UUID_RE = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const MAX_TOKEN = 200;
const BLOB_RE = /(?:\bsha(?:1|256|384|512)-|;base64,)[A-Za-z0-9+/=_-]+|[A-Za-z0-9+/]{200,}={0,2}/g;
/** Random-looking but public by design: Stripe publishable keys. */
const PUBLIC_TOKEN = /^pk_(?:live|test)_/;

/** A generic high-entropy token, by the rules in the doc comment above. */
export function looksRandom(token: string, minEntropy: number): boolean {
  if (token.length < 20 || token.length > MAX_TOKEN) return false;
  if (/^[0-9a-fA-F]+$/.test(token) || UUID_RE.test(token) || PUBLIC_TOKEN.test(token)) return false;
  if (!/\d/.test(token) || !/[A-Za-z]/.test(token)) return false;
  // Slugs: pieces between `-`/`_` that are words, numbers or short (`OWASP-Top-10-for-LLMs-2023-slides-v1_0`).
  const pieces = token.split(/[-_]+/);
  if (pieces.length > 1 && pieces.every((p) => p.length <= 3 || /^(?:[A-Za-z]+|\d+)$/.test(p))) return false;
  if (/[a-z]{7,}/.test(token) || segmentDensity(token) < 0.4) return false;
  return shannonEntropy(token) >= minEntropy;
}

export const secretsDetector = defineDetector({
  type: 'secrets',
  summary: 'true when credentials (API keys, tokens, private keys, passwords, high-entropy strings) appear',
  options: SecretsOptionsSchema,
  create(opts) {
    const kinds = new Set<SecretKind>(opts.kinds ?? SECRET_KINDS);
    const patterns = SECRET_PATTERNS.filter((p) => kinds.has(p.kind));
    const entropy = kinds.has('high_entropy');
    const passwords = kinds.has('password_assignment');
    const { field, min_entropy: minEntropy } = opts;
    return function secrets(i) {
      const findings: Finding[] = [];
      const fields = inspectedFields(i, field);
      for (const f of fields) {
        const taken: Array<[number, number]> = [];
        const overlaps = (s: number, e: number): boolean => taken.some(([a, b]) => s < b && e > a);
        // A structured argument named like a password (`{"db": {"password": "…"}}`): the whole value is one.
        const key = f.field.split('.').pop() ?? '';
        if (passwords && f.field.startsWith('arguments.') && SECRET_KEY_NAME.test(key) && f.text.length <= 256 && passwordOk(f.text, `${key}=${f.text}`)) {
          taken.push([0, f.text.length]);
          findings.push({ kind: 'password_assignment', field: f.field, start: 0, end: f.text.length, shown: mask(f.text) });
        }
        for (const p of patterns) {
          p.re.lastIndex = 0;
          for (const m of f.text.matchAll(p.re)) {
            const secret = m[1] ?? m[2] ?? m[3] ?? m[0];
            if (p.check && !p.check(secret, m[0])) continue;
            const start = m.index + m[0].lastIndexOf(secret);
            const end = start + secret.length;
            if (overlaps(start, end)) continue;
            taken.push([start, end]);
            findings.push({ kind: p.kind, field: f.field, start, end, shown: mask(secret) });
            if (findings.length >= MAX_SPANS) return fromFindings('secrets', findings);
          }
        }
        if (!entropy) continue;
        // Subresource-integrity hashes, `data:` URIs and long base64 blobs are encodings, not credentials.
        const blobs: Array<[number, number]> = [];
        BLOB_RE.lastIndex = 0;
        for (const m of f.text.matchAll(BLOB_RE)) blobs.push([m.index, m.index + m[0].length]);
        let b = 0;
        TOKEN_RE.lastIndex = 0;
        for (const m of f.text.matchAll(TOKEN_RE)) {
          const start = m.index;
          const end = start + m[0].length;
          while (b < blobs.length && blobs[b]![1] <= start) b++;
          if (b < blobs.length && blobs[b]![0] < end) continue;
          if (m[0].length > MAX_TOKEN || overlaps(start, end) || !looksRandom(m[0], minEntropy)) continue;
          findings.push({ kind: 'high_entropy', field: f.field, start, end, shown: mask(m[0]) });
          if (findings.length >= MAX_SPANS) break;
        }
      }
      if (findings.length === 0) return cutOrNo('secrets', fields);
      return fromFindings('secrets', findings);
    };
  },
});
