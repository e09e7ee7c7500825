import { shannonEntropy } from '../../../src/core/entropy.js';
import { mayHaveEscapes, mayHaveReadingsUnder, readingsOf, SECRET_READINGS } from '../../../src/core/text/readings.js';
import { RUN_CLASS_BITS, RUN_CLASSES } from '../../../src/core/text/runs.js';
import { render } from './mask-prefix.js';
import { firstInReadings, MASK_PREFILTER, mayHoldSecret, scanSpans, SECRET_FORMATS, type SecretSpan } from '../../../src/detectors/secrets/catalogue.js';

/**
 * The store's masker as it was before its passes over a long token run were shared (int8, 96c5388): `maskWindow`
 * reads the run to its end for each window, `maskSpans` asks its mask prefilter twice, the loose entropy rule tests
 * token characters by comparisons. The parts left unchanged (the detector's `scanSpans`, the readings) are called.
 */
export function formerMaskPrefix(text: string, max: number): string {
  let window = tokenRunEnd(text, Math.min(text.length, max + 512));
  for (;;) {
    const part = window === text.length ? text : text.slice(0, window);
    const { out, consumed } = render(part, formerMaskSpans(part), max);
    const cut = consumed < text.length;
    if (!cut || consumed + 512 <= window || window >= text.length) return cut ? `${out}…` : out;
    window = tokenRunEnd(text, Math.min(text.length, window * 2));
  }
}

const TOKEN_BIT = 1 << RUN_CLASSES.indexOf('secret-token');

function tokenRunEnd(text: string, at: number): number {
  let i = at;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c >= 128 || (RUN_CLASS_BITS[c]! & TOKEN_BIT) === 0) break;
    i++;
  }
  return i;
}

export function formerMaskSpans(text: string): SecretSpan[] {
  if (!MASK_PREFILTER.test(text) && !mayHoldSecret(text)) return mayHaveEscapes(text) || mayHaveReadingsUnder(text, SECRET_READINGS) ? encodedMaskSpans(text, []) : [];
  return encodedMaskSpans(text, scanPlainMaskSpans(text));
}

function encodedMaskSpans(text: string, spans: SecretSpan[]): SecretSpan[] {
  let rest = text;
  for (let i = spans.length - 1; i >= 0; i--) rest = `${rest.slice(0, spans[i]!.start)} ${rest.slice(spans[i]!.end)}`;
  if (!mayHaveReadingsUnder(rest, SECRET_READINGS)) return spans;
  const readings = readingsOf(rest, SECRET_READINGS);
  if (readings.unread !== undefined) return [{ start: 0, end: text.length, kind: 'unread_encoding' }];
  const found = firstInReadings(readings.views.slice(1));
  return found === undefined ? spans : [{ start: 0, end: text.length, kind: found.span.kind }];
}

function scanPlainMaskSpans(text: string): SecretSpan[] {
  const spans = scanSpans(text);
  if (MASK_PREFILTER.test(text)) {
    for (const { kind, mask: p } of SECRET_FORMATS) {
      if (p === undefined) continue;
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

const MASK_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function looksRandomLoose(token: string): boolean {
  if (MASK_UUID.test(token)) return false;
  const classes = Number(/[0-9]/.test(token)) + Number(/[a-z]/.test(token)) + Number(/[A-Z]/.test(token));
  if (classes < 2) return false;
  return shannonEntropy(token) >= (classes === 3 ? 3.6 : 3.9);
}

function isTokenChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 43 || c === 47 || c === 95 || c === 45;
}

function looseEntropySpans(text: string, out: SecretSpan[]): void {
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    if (i < text.length && isTokenChar(text.charCodeAt(i))) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start >= 24) {
      let end = i;
      while (end < text.length && end - i < 2 && text.charCodeAt(end) === 61) end++;
      if (looksRandomLoose(text.slice(start, i))) out.push({ start, end, kind: 'high_entropy' });
    }
    start = -1;
  }
}
