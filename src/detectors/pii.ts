import { z } from 'zod';
import { defineDetector } from './registry.js';
import { FieldSelectorSchema, fromFindings, cutOrNo, encodedReadings, inspectedFields, mask, MAX_SPANS, type Finding } from './common.js';
import { ibanValid, luhnValid } from './luhn.js';

/**
 * `pii`: personal data in the selected text.
 *
 * - `kinds` (default: all):
 *   - `email`: `local@domain.tld` (a TLD of letters; `icon@2x.png`-style file names are not addresses);
 *   - `phone`: E.164 (`+` country code, 8–15 digits, spaces/dots/dashes/parentheses allowed), North American
 *     `(415) 555-0132` / `415-555-0132` / `1 415 555 0132`, and trunk-prefixed national numbers `020 7946 0958`,
 *     `030-12345678` (9–12 digits with at least one separator). Never dates (`2024-01-15`, `15.01.2024`), IPs,
 *     version strings or plain digit runs;
 *   - `card`: 13–19 digits (single spaces or dashes between digits, or dots between groups of four) that pass
 *     Luhn and start with a known issuer prefix (Visa 4, Mastercard 51–55/22–27, Amex 34/37, Discover 6011/64/65, JCB 35, Diners
 *     30/36/38, UnionPay 62, Maestro 50/56–58/67);
 *   - `iban`: country code, check digits and 11–30 alphanumerics (optionally in groups of four), mod-97 valid;
 *   - `national_id`: US SSN `123-45-6789` / `123 45 6789` (area not 000, 666 or 900–999, group not 00, serial not
 *     0000, and not the well-known 078-05-1120 / 219-09-9999), UK NINO `AB 12 34 56 C` (valid prefix letters).
 * - `field` (default `any`); a missing field is `false`.
 *
 * A field with nothing in clear is read again decoded (not in results): URL encoding, base64 and hex runs, HTML
 * references, backslash escapes, full-width digits, zero-width splitting; a value found there covers the whole field.
 *
 * Inspects every field to its end (16 MiB in all; beyond it, nothing found is `unknown`). Evidence masks each value; spans cover them for redaction.
 *
 * @example { type: pii, field: content, kinds: [card, iban, national_id] }
 */
export const PII_KINDS = ['email', 'phone', 'card', 'iban', 'national_id'] as const;
export type PiiKind = (typeof PII_KINDS)[number];

export const PiiOptionsSchema = z.strictObject({
  field: FieldSelectorSchema.default('any'),
  kinds: z.array(z.enum(PII_KINDS)).min(1).optional(),
});
export type PiiOptions = z.infer<typeof PiiOptionsSchema>;

interface PiiPattern {
  kind: PiiKind;
  re: RegExp;
  check: (m: string) => boolean;
}

const FILE_TLD = /\.(?:png|jpe?g|gif|svg|webp|ico|bmp|tiff?|js|ts|css|map|json|min)$/i;
const DATE = /^(?:\d{4}[-./ ]\d{1,2}[-./ ]\d{1,2}|\d{1,2}[-./ ]\d{1,2}[-./ ]\d{2,4})$/;
const digits = (s: string): string => s.replace(/\D/g, '');

function phoneOk(m: string): boolean {
  // Dates and SSN-shaped groups (ddd-dd-dddd) are never phone numbers.
  if (DATE.test(m) || /^\d{3}([- ])\d{2}\1\d{4}$/.test(m)) return false;
  const n = digits(m).length;
  if (m.startsWith('+')) return n >= 8 && n <= 15;
  // NANP: area and exchange codes start with 2–9.
  if (/^(?:1[ .-]?)?(?:\([2-9]\d{2}\)\s?|[2-9]\d{2}[ .-])[2-9]\d{2}[ .-]\d{4}$/.test(m)) return true;
  // Trunk-prefixed national numbers: a leading 0, a separator, 9–12 digits.
  return /^(?:\(0[1-9]\d{0,3}\)\s?|0[1-9]\d{0,3}[ .-])\d{2,8}(?:[ .-]\d{2,8}){0,3}$/.test(m) && n >= 9 && n <= 12;
}

const CARD_PREFIX = /^(?:4|5[1-5]|2[2-7]|3[47]|6011|6[45]|35|3[068]|62|5[0678]|67)/;

function cardOk(m: string): boolean {
  const d = digits(m);
  if (d.length < 13 || d.length > 19 || !CARD_PREFIX.test(d) || /^(\d)\1+$/.test(d)) return false;
  // Separators, when used, must be consistent (all spaces or all dashes).
  if (/ /.test(m) && /-/.test(m)) return false;
  return luhnValid(d);
}

function ssnOk(m: string): boolean {
  const [area, group, serial] = m.split(/[- ]/).map(Number) as [number, number, number];
  if (area === 0 || area === 666 || area >= 900 || group === 0 || serial === 0) return false;
  return !['078-05-1120', '219-09-9999'].includes(m.replace(/ /g, '-'));
}

const PATTERNS: PiiPattern[] = [
  {
    kind: 'email',
    re: /(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}(?![\w-])/g,
    check: (m) => !FILE_TLD.test(m),
  },
  // Single spaces or dashes anywhere, or dots between groups of four as printed on the card (4111.1111.1111.1111);
  // not dots elsewhere, which dates, versions and addresses use.
  { kind: 'card', re: /(?<![\d.-])(?:\d{4}(?:\.\d{4}){3}(?:\.\d{1,3})?|\d(?:[ -]?\d){12,18})(?![\d-]|\.\d)/g, check: cardOk },
  {
    kind: 'iban',
    re: /(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?:(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,4})?|[A-Z0-9]{11,30})(?![A-Za-z0-9])/g,
    check: (m) => ibanValid(m.replace(/ /g, '')),
  },
  { kind: 'national_id', re: /(?<![\d-])\d{3}([- ])\d{2}\1\d{4}(?![\d-])/g, check: ssnOk },
  {
    kind: 'national_id',
    re: /(?<![A-Za-z0-9])(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D](?![A-Za-z0-9])/g,
    check: () => true,
  },
  {
    kind: 'phone',
    re: /(?<![\w.+/-])(?:\+\d[\d ().-]{6,20}\d|\(?\d[\d ().-]{7,18}\d)(?![\w/-]|\.\d)/g,
    check: phoneOk,
  },
];

/** The first value of the patterns' kinds in `text`, if any. */
function firstValue(text: string, patterns: readonly (typeof PATTERNS)[number][]): { kind: PiiKind; value: string } | undefined {
  for (const p of patterns) {
    p.re.lastIndex = 0;
    for (const m of text.matchAll(p.re)) if (p.check(m[0])) return { kind: p.kind, value: m[0] };
  }
  return undefined;
}

export const piiDetector = defineDetector({
  type: 'pii',
  summary: 'true when personal data (e-mail, phone, payment card, IBAN, national id) appears',
  options: PiiOptionsSchema,
  create(opts) {
    const kinds = new Set<PiiKind>(opts.kinds ?? PII_KINDS);
    const patterns = PATTERNS.filter((p) => kinds.has(p.kind));
    const field = opts.field;
    return function pii(i) {
      const findings: Finding[] = [];
      const fields = inspectedFields(i, field);
      for (const f of fields) {
        const taken: Array<[number, number]> = [];
        for (const p of patterns) {
          p.re.lastIndex = 0;
          for (const m of f.text.matchAll(p.re)) {
            const start = m.index;
            const end = start + m[0].length;
            // Earlier (more specific) kinds win: a card number is not also reported as a phone.
            if (taken.some(([a, b]) => start < b && end > a) || !p.check(m[0])) continue;
            taken.push([start, end]);
            findings.push({ kind: p.kind, field: f.field, start, end, shown: mask(m[0]) });
            if (findings.length >= MAX_SPANS) return fromFindings('pii', findings);
          }
        }
      }
      if (findings.length > 0) return fromFindings('pii', findings);
      // Nothing in clear: a value may still leave encoded (URL, base64, hex, HTML or backslash escapes, full-width
      // digits, zero-width splitting). A value found in a reading covers its whole field (no offsets map back).
      let unread: string | undefined;
      for (const f of fields) {
        const readings = encodedReadings(i, f.text);
        const found = readings.views.map((view) => firstValue(view, patterns)).find((v) => v !== undefined);
        if (found) findings.push({ kind: found.kind, field: f.field, start: 0, end: f.text.length, shown: `${mask(found.value)} (encoded)` });
        else if (readings.unread !== undefined) unread ??= `${f.field}: ${readings.unread}`;
      }
      // A reading left unread may hold personal data: not sent unchecked.
      if (findings.length === 0 && unread !== undefined) return { value: 'true', score: 1, evidence: `pii: ${unread}; not sent unchecked` };
      if (findings.length === 0) return cutOrNo('pii', fields);
      return fromFindings('pii', findings);
    };
  },
});
