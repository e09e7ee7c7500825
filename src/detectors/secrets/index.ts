import { z } from 'zod';
import { defineDetector } from '../registry.js';
import { cutOrNo, encodedReadings, FieldSelectorSchema, fromFindings, inspectedFields, mask, MAX_SPANS, type Finding } from '../common.js';
import { readingsOf, SECRET_READINGS } from '../../core/text/readings.js';
import { isCredentialField } from '../../core/credential-fields.js';
import { DEFAULT_MIN_ENTROPY, detectSpans, ENCODED_KINDS, firstInReadings, passwordOk, SECRET_KINDS, WHOLE_MATCH_KINDS, type SecretKind } from './catalogue.js';

/**
 * `secrets`: credentials in the selected text.
 *
 * - `kinds` (default: all): `aws_access_key`, `aws_secret_key` (40 chars after an `aws…secret` key name),
 *   `github_token` (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`), `slack_token` (`xox?-`, webhook URLs),
 *   `stripe_key` (`sk_live_`, `rk_test_`…; publishable `pk_` keys are not secrets), `google_api_key` (`AIza…`),
 *   `openai_key` (`sk-…`, `sk-proj-…`), `anthropic_key` (`sk-ant-…`), `private_key` (PEM `BEGIN … PRIVATE KEY`
 *   blocks), `jwt` (three base64url parts whose header decodes to JSON with `alg`), `bearer_token`
 *   (`Authorization: Bearer|Basic|Token …`, bare `Bearer …`), `password_assignment` (`password=…`, `DB_PASSWORD: …`,
 *   `api_key = "…"`, `scheme://user:pass@host`, and a whole argument value in a credential field (named for one,
 *   e.g. `arguments.db.password`, `apiKey`, `access_token`, or marked so by the tool's input schema: `format: password`,
 *   `writeOnly`, `x-sensitive`, a description naming it; core/credential-fields.ts), each element of a list under
 *   such a field included; placeholders such as `${PW}`, `<secret>`, `****`, `string`,
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
 * A field with nothing in clear is read again through the readings of what leaves (not in results; docs/inspection.md):
 * URL encoding, base64 / base64url, base32, hex and hex bytes, char codes, HTML character references, `\u`/`\x`
 * escapes, full-width forms, zero-width characters, doubled and interleaved letters, nested up to 8 deep; a credential
 * of a known format (not `high_entropy`) found there covers the whole field. A reading left unread (nested deeper, over
 * the budget) is `true`: not sent unchecked. The arguments of one call are also read joined (in their order and
 * reversed), for the formats whose match is the credential itself: a key split between a file name and its content.
 *
 * Inspects every field to its end (16 MiB in all; beyond it, nothing found is `unknown`). Evidence shows each caught secret masked (`ghp_…40`), never in
 * clear; spans cover the secrets themselves (not `password=`), for redaction.
 *
 * @example { type: secrets, field: arguments, kinds: [aws_access_key, private_key, github_token] }
 */
export const SecretsOptionsSchema = z.strictObject({
  field: FieldSelectorSchema.default('any'),
  kinds: z.array(z.enum(SECRET_KINDS)).min(1).optional(),
  min_entropy: z.number().min(0).max(8).default(DEFAULT_MIN_ENTROPY),
});
export type SecretsOptions = z.infer<typeof SecretsOptionsSchema>;

export { looksRandom } from './catalogue.js';

export const secretsDetector = defineDetector({
  type: 'secrets',
  summary: 'true when credentials (API keys, tokens, private keys, passwords, high-entropy strings) appear',
  options: SecretsOptionsSchema,
  create(opts) {
    const kinds = new Set<SecretKind>(opts.kinds ?? SECRET_KINDS);
    const passwords = kinds.has('password_assignment');
    const encodedKinds = new Set([...kinds].filter((k) => ENCODED_KINDS.has(k)));
    const joinKinds = new Set([...encodedKinds].filter((k) => WHOLE_MATCH_KINDS.has(k)));
    const { field, min_entropy: minEntropy } = opts;
    return function secrets(i) {
      const findings: Finding[] = [];
      // Credentials in context (src/guard/credentials.ts), from the data-flow stage: a credential this identity gave
      // before, now in free text or at another server, is a leak whatever it looks like; a credential given as one
      // (in a field named for it, to a tool that is not a sink, at the server it was first given to) is not.
      const misuse = i.flow?.credentialMisuse;
      if (misuse !== undefined && (field === 'any' || misuse.field.split('.')[0] === field)) {
        findings.push({ kind: 'password_assignment', field: misuse.field, start: 0, end: 0, shown: `(${misuse.why})` });
      }
      const given = i.flow?.credentials;
      const all = inspectedFields(i, field);
      const fields = given === undefined || given.length === 0 ? all : all.filter((f) => !given.includes(f.field));
      const schemaKeys = i.kind === 'tool_call' ? i.credentialKeys : undefined;
      for (const f of fields) {
        const taken: Array<[number, number]> = [];
        const overlaps = (s: number, e: number): boolean => taken.some(([a, b]) => s < b && e > a);
        // An argument that is a credential field (core/credential-fields.ts: named for one, `{"db": {"password": "…"}}`,
        // or so marked by the tool's schema): the whole value is one, and so is each element of a list under it.
        const key = f.field.split('.').findLast((part) => !/^\d+$/.test(part)) ?? '';
        if (passwords && f.field.startsWith('arguments.') && isCredentialField(f.field, schemaKeys) && f.text.length <= 256 && passwordOk(f.text, `${key}=${f.text}`)) {
          taken.push([0, f.text.length]);
          findings.push({ kind: 'password_assignment', field: f.field, start: 0, end: f.text.length, shown: mask(f.text) });
        }
        for (const span of detectSpans(f.text, { kinds, minEntropy, limit: MAX_SPANS })) {
          if (overlaps(span.start, span.end)) continue;
          findings.push({ kind: span.kind, field: f.field, start: span.start, end: span.end, shown: mask(f.text.slice(span.start, span.end)) });
          if (findings.length >= MAX_SPANS) return fromFindings('secrets', findings);
        }
      }
      if (findings.length > 0) return fromFindings('secrets', findings);
      // Nothing in clear: a credential may still be carried encoded (base64, hex, URL or HTML escapes, full-width or
      // split by zero-width characters). A secret found in a reading covers its whole field (no offsets map back).
      // Readings are matched against the known formats only: decoded content is often random-looking printable
      // text, and a random token encoded is a high-entropy token in clear already.
      if (encodedKinds.size === 0) return cutOrNo('secrets', fields);
      let unread: string | undefined;
      for (const f of fields) {
        const readings = encodedReadings(i, f.text);
        const found = firstInReadings(readings.views, encodedKinds, minEntropy);
        if (found) findings.push({ kind: found.span.kind, field: f.field, start: 0, end: f.text.length, shown: `${mask(found.reading.slice(found.span.start, found.span.end))} (encoded)` });
        else if (readings.unread !== undefined) unread ??= `${f.field}: ${readings.unread}`;
        if (findings.length >= MAX_SPANS) break;
      }
      // The fields of one call read together as well as apart: a credential split between two arguments (a file
      // name and its content) is whole in their join, in one order or the other. Only the known formats whose
      // match is the credential itself: a join glues unrelated values, which the entropy and context rules misread.
      if (findings.length === 0) {
        const args = fields.filter((f) => f.field.startsWith('arguments.') && f.text.length > 0).map((f) => f.text);
        if (args.length > 1 && joinKinds.size > 0) {
          for (const joined of [args.join(''), [...args].reverse().join('')]) {
            const found = firstInReadings(readingsOf(joined, SECRET_READINGS).views, joinKinds, minEntropy);
            if (found) {
              findings.push({ kind: found.span.kind, field: 'arguments', start: 0, end: 0, shown: `${mask(found.reading.slice(found.span.start, found.span.end))} (split across arguments)` });
              break;
            }
          }
        }
      }
      // A reading left unread may hold a credential: not sent unchecked.
      if (findings.length === 0 && unread !== undefined) return { value: 'true', score: 1, evidence: `secrets: ${unread}; not sent unchecked` };
      if (findings.length === 0) return cutOrNo('secrets', fields);
      return fromFindings('secrets', findings);
    };
  },
});
