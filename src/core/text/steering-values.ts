/**
 * Steering values (docs/provenance.md): the values an action can be pointed with (a recipient, an account, a guest
 * id, a URL, a path, a command), found in a text, each with the field it was written in and whether a third party
 * could have written it there.
 *
 * Who writes a field is read from the result's shape, not from its words. A value that is the whole of a field of a
 * structured result (a channel in a channel list, the recipient of a transaction, a mail's `From:` header) was put
 * there by the provider; a value inside prose (a message body, a review, a bill's text, a page) or in a free-text
 * field (`body`, `subject`, `description`, `review`, `comment`…) was written by whoever wrote that text.
 */
import { isKeyedLine, keyBeforeValue } from './keyed-line.js';

export type SteeringKind = 'email' | 'domain' | 'iban' | 'number' | 'wallet' | 'id' | 'path' | 'command' | 'address' | 'amount';

export interface FoundValue {
  kind: SteeringKind;
  /** Normalised: what is hashed and compared. */
  normalised: string;
  /** The field it was written in (`text` for prose). */
  field: string;
  /** True when a third party could have written it (free text); false for a provider-written whole field. */
  thirdParty: boolean;
}

/** Keys of fields whose text third parties write. */
const FREE_TEXT_KEY = /(?:^|[^a-z])(?:body|content|text|message|msg|subject|desc|description|review|reviews|comment|comments|note|notes|bio|about|snippet|summary|title|caption|memo|remark|remarks|instructions?|event_name|task_name|status_text|reason|purpose)(?:$|[^a-z])/i;

const EMAIL = /[\p{L}\p{N}._%+-]{1,64}@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}/gu;
const URL_RE = /\b(?:[a-z][a-z0-9+.-]{1,9}:\/\/|www\.)[^\s'"<>`)\]}]+/gi;
/** A bare domain (`evil-site.com`): labels of letters, digits and dashes, a final label of letters; file names excluded below. */
const DOMAIN = /(?<![\p{L}\p{N}@._/-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,12}(?![\p{L}\p{N}_@-]|\.[a-z0-9])/giu;
const FILE_EXT = /\.(?:txt|md|pdf|docx?|xlsx?|csv|json|ya?ml|py|js|ts|sh|html?|png|jpe?g|gif|zip|gz|tar|log|cfg|conf|ini|exe|dll|so|rb|go|rs|java|c|h|cpp|xml|eml)$/i;
const IBAN = /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]){10,30}\b/g;
/** Account, card, phone numbers: 7+ digits, groups split by spaces, dashes, dots or brackets. */
const NUMBER = /(?<![\p{L}\p{N}])\+?\(?\d[\d ().-]{5,30}\d(?![\p{L}\p{N}])/gu;
const WALLET = /\b(?:0x[a-fA-F0-9]{40}|bc1[a-z0-9]{25,62}|[13][a-km-zA-HJ-NP-Z1-9]{25,34})\b/g;
/** Ids: a token with a letter and a digit or underscore (`guest_amy01`, `789GHI`, `Important_Project`). */
const ID = /(?<![\p{L}\p{N}_@./-])(?=[\w-]*[A-Za-z])(?=[\w-]*[\d_])[A-Za-z0-9][\w-]{3,63}(?![\p{L}\p{N}_@-])/gu;
const PATH = /(?<![\p{L}\p{N}:/])(?:~|\.{1,2})?\/(?:[\w.*~-]+\/?)+/gu;
/** A street address, number first (`123 Maine st`) or last (`Dalton Street 123`): where a parcel or a person goes. */
const STREET = '(?:street|st|str|strasse|straße|road|rd|avenue|ave|av|boulevard|blvd|lane|ln|drive|dr|way|court|ct|place|pl|square|sq|parkway|pkwy|highway|hwy|terrace|rue|calle|via|weg|gasse)';
const ADDRESS = new RegExp(`\\b\\d{1,6}\\s+(?:[\\p{L}][\\p{L}.'-]*\\s+){1,4}${STREET}\\b|\\b(?:[\\p{Lu}][\\p{L}'-]*\\s+){1,3}${STREET}\\.?\\s+\\d{1,6}\\b`, 'giu');
const STREET_WORD = new RegExp(`\\b${STREET}\\b\\.?`, 'giu');
/**
 * An amount of money: a number with a currency symbol, ISO code or word before or after it (`$50`, `USD 50`,
 * `1.000,00 €`, `250 euros`). A bare number is not one in a text (it could be anything); in a call, an argument
 * named as an amount is (AMOUNT_ARG in guard/provenance.ts).
 */
const AMOUNT_NUMBER = String.raw`\d{1,3}(?:[,.' \u00a0\u202f]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?`;
const CURRENCY_SYMBOL = String.raw`(?:US|CA|AU|NZ|HK|S)?\$|[€£¥₹₽₩₺₪฿₿]|R\$|Fr\.|CHF`;
const CURRENCY_CODE = 'USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|CNY|RMB|INR|RUB|BRL|SEK|NOK|DKK|PLN|CZK|HUF|MXN|KRW|TRY|ZAR|SGD|HKD|BTC|ETH|USDT|USDC';
const CURRENCY_WORD = 'euros?|dollars?|pounds?|francs?|yen|yuan|rupees?|roubles?|rubles?|pesos?|reais|real|kronor|kroner|z[łl]oty|bitcoins?|d[óo]lares|рубл[а-я]*|долл[а-я]*|евро|美元|欧元|元';
const AMOUNT = new RegExp(
  String.raw`(?<![\p{L}\p{N}])(?:${CURRENCY_SYMBOL}|(?:${CURRENCY_CODE})\s?)\s?(?:${AMOUNT_NUMBER})(?![\p{N}]|[.,]\d)|(?<![\p{L}\p{N}.,])(?:${AMOUNT_NUMBER})\s?(?:${CURRENCY_SYMBOL}|(?:${CURRENCY_CODE}|${CURRENCY_WORD})(?![\p{L}]))`,
  'giu',
);
/** A command: text in backticks, or a line starting with `$ `. */
export const COMMAND = /`([^`\n]{4,400})`|^(?<!^\s*?[\n\r\u2028\u2029])\s*\$ (.{4,400})$/gm;

/** Field values at most this long can be provider-written ids; longer ones are prose. */
const SHORT_FIELD = 120;

/** The e-mail addresses written in `text` (a short one: an argument), as written. */
export function mailAddressesIn(text: string): string[] {
  return [...text.matchAll(EMAIL)].map((m) => m[0]);
}

export function normaliseValue(kind: SteeringKind, raw: string): string | undefined {
  switch (kind) {
    case 'email':
      return raw.toLowerCase();
    case 'domain': {
      const host = raw.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^[^@/]*@/, '').split(/[/?#:]/)[0]!.toLowerCase().replace(/^www\./, '').replace(/\.$/, '');
      return host.includes('.') && !FILE_EXT.test(host) ? host : undefined;
    }
    case 'iban':
      return raw.replace(/ /g, '').toUpperCase();
    case 'number': {
      const d = raw.replace(/\D/g, '');
      return d.length >= 7 && d.length <= 24 && !/^(\d)\1+$/.test(d) && !/^(?:19|20)\d{6}$/.test(d) ? d : undefined;
    }
    case 'wallet':
      return raw.toLowerCase();
    case 'id':
      return raw.length >= 4 && /[a-z]/i.test(raw) && !/^\d{4}-\d{2}/.test(raw) ? raw.toLowerCase() : undefined;
    case 'path': {
      // eslint-disable-next-line regexp/no-super-linear-move -- raw is a PATH match, whose slashes never stand side by side: each start reads one slash
      const p = raw.replace(/\/\*+$/, '').replace(/\/+$/, '').toLowerCase();
      return p.split('/').filter(Boolean).length >= 2 || p.startsWith('~/') ? p : undefined;
    }
    case 'command':
      return raw.trim().replace(/\s+/g, ' ').toLowerCase();
    case 'amount':
      return normaliseAmount(raw);
    case 'address': {
      // Number and street name, whatever the order and however the street type is written.
      const words = raw.toLowerCase().replace(STREET_WORD, ' ').split(/[^\p{L}\p{N}]+/u).filter(Boolean);
      const num = words.filter((w) => /^\d+$/.test(w));
      const name = words.filter((w) => !/^\d+$/.test(w));
      return num.length === 1 && name.length > 0 ? `${num[0]} ${name.join(' ')}` : undefined;
    }
  }
}

/** A `data:` URI's header (`data:text/plain;base64,`): syntax (a media type and an encoding), not a value anyone chose. */
export const DATA_URI_HEAD = /\bdata:[\w.+-]*(?:\/[\w.+-]*)?(?:;[\w.+-]+(?:=[\w.+-]*)?)*,/gi;

/** Every steering value in `text` with its kind and position (no field decision). */
export function valuesIn(raw: string): Array<{ kind: SteeringKind; normalised: string; start: number; end: number }> {
  const out: Array<{ kind: SteeringKind; normalised: string; start: number; end: number }> = [];
  // Blanked to the same length, so positions still point into `raw`.
  const text = raw.includes('data:') ? raw.replace(DATA_URI_HEAD, (m) => ' '.repeat(m.length)) : raw;
  const push = (kind: SteeringKind, raw: string, start: number) => {
    const n = normaliseValue(kind, raw);
    if (n !== undefined) out.push({ kind, normalised: n, start, end: start + raw.length });
  };
  // An address's domain is not kept apart: a mail domain (gmail.com) names millions of recipients.
  for (const m of text.matchAll(EMAIL)) push('email', m[0], m.index);
  for (const m of text.matchAll(URL_RE)) push('domain', m[0], m.index);
  for (const m of text.matchAll(DOMAIN)) push('domain', m[0], m.index);
  for (const m of text.matchAll(IBAN)) push('iban', m[0], m.index);
  for (const m of text.matchAll(NUMBER)) push('number', m[0], m.index);
  for (const m of text.matchAll(WALLET)) push('wallet', m[0], m.index);
  for (const m of text.matchAll(ID)) push('id', m[0], m.index);
  for (const m of text.matchAll(PATH)) push('path', m[0], m.index);
  for (const m of text.matchAll(COMMAND)) push('command', (m[1] ?? m[2])!, m.index);
  for (const m of text.matchAll(ADDRESS)) push('address', m[0], m.index);
  for (const m of text.matchAll(AMOUNT)) push('amount', m[0], m.index);
  return out;
}

/** What is around an amount's digits; a run is read from its first character only. */
export const AMOUNT_EDGES = /^\D+|(?<!\D)\D+$/g;

/**
 * An amount as a plain decimal (`1,000.00`, `1.000,00`, `1 000` and `1000` all give `1000`; `98,70` gives `98.7`),
 * or undefined when it is no number or too common to say where it came from: whole numbers up to 20, round powers of
 * ten (100, 1000…) and years. A separator followed by exactly three digits groups thousands; the last separator
 * followed by one or two digits is the decimal point, whichever character it is.
 */
export function normaliseAmount(raw: string): string | undefined {
  const t = raw.trim().replace(AMOUNT_EDGES, '').replace(/[' \u00a0\u202f]/g, '');
  if (!/^\d[\d.,]*$/.test(t) || t.length > 24) return undefined;
  const last = Math.max(t.lastIndexOf('.'), t.lastIndexOf(','));
  const decimals = last >= 0 && t.length - last - 1 <= 2 && !(t.split(t[last]!).length > 2);
  const whole = (decimals ? t.slice(0, last) : t).replace(/[.,]/g, '');
  const frac = decimals ? t.slice(last + 1) : '';
  if (whole === '' && frac === '') return undefined;
  const value = Number(`${whole || '0'}.${frac || '0'}`);
  if (!Number.isFinite(value) || value <= 0) return undefined;
  // eslint-disable-next-line regexp/no-super-linear-move -- the text of toFixed(2): at most 24 characters (from 1e21 it is written with an exponent)
  const text = value.toFixed(2).replace(/\.?0+$/, '');
  if (Number.isInteger(value) && (value <= 20 || /^10+$/.test(text) || (value >= 1900 && value <= 2100))) return undefined;
  return text;
}

/**
 * The steering values of a result's text, each with its field and who could write it. `limit` bounds how many are
 * returned; `overflow` says more were there (the caller fails closed).
 */
export function steeringValues(text: string, limit: number): { values: FoundValue[]; overflow: boolean } {
  const seen = new Set<string>();
  const values: FoundValue[] = [];
  let overflow = false;
  const add = (v: FoundValue) => {
    const key = `${v.kind}\0${v.normalised}\0${v.thirdParty ? 1 : 0}`;
    if (seen.has(key)) return;
    if (values.length >= limit) {
      overflow = true;
      return;
    }
    seen.add(key);
    values.push(v);
  };
  const json = parseJson(text);
  if (json !== undefined) {
    walkJson(json, '', (key, leaf) => {
      const free = FREE_TEXT_KEY.test(key);
      for (const v of valuesIn(leaf)) {
        const [start, end] = mailboxOf(leaf, v.start, v.end) ?? [v.start, v.end];
        const whole = leaf.trim().length <= SHORT_FIELD && start <= leaf.length - leaf.trimStart().length + 1 && end >= leaf.trimEnd().length - 1;
        add({ kind: v.kind, normalised: v.normalised, field: key || 'text', thirdParty: free || !whole });
      }
    });
    return { values, overflow };
  }
  const lines = text.split('\n');
  // A block of headers and a blank line (a mail, an HTTP message): the headers are fields, what follows is prose.
  const header = headerLines(lines);
  const structured = header === 0 && isStructured(lines);
  for (const [n, line] of lines.entries()) {
    const lineStructured = structured || n < header;
    for (const v of valuesIn(line)) {
      const f = lineStructured ? fieldOf(line, v.start, v.end) : { key: 'text', whole: false };
      add({ kind: v.kind, normalised: v.normalised, field: f.key, thirdParty: !f.whole || FREE_TEXT_KEY.test(f.key) });
    }
    if (overflow) break;
  }
  return { values, overflow };
}

function parseJson(text: string): unknown {
  const t = text.trim();
  if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

function walkJson(v: unknown, key: string, leaf: (key: string, text: string) => void, depth = 0): void {
  if (depth > 64) return;
  if (typeof v === 'string') leaf(key, v);
  else if (typeof v === 'number') leaf(key, String(v));
  else if (Array.isArray(v)) for (const x of v) walkJson(x, key, leaf, depth + 1);
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) walkJson(x, k, leaf, depth + 1);
}

const LIST_LINE = /^\s*-\s+\S/;

/** A document of fields: starts as a dict or list, or most of its lines are `key: value`, list items or tab-separated cells. */
function isStructured(lines: string[]): boolean {
  const first = lines.find((l) => l.trim().length > 0)?.trim() ?? '';
  if (first.startsWith('{') || first.startsWith('[')) return true;
  const nonEmpty = lines.filter((l) => l.trim().length > 0);
  if (nonEmpty.length === 0) return false;
  const fields = nonEmpty.filter((l) => isKeyedLine(l) || LIST_LINE.test(l) || l.includes('\t')).length;
  return fields / nonEmpty.length >= 0.7;
}

/** A leading block of at least two `Key: value` lines ended by a blank line (a mail's headers): how many lines. */
function headerLines(lines: string[]): number {
  let n = 0;
  while (n < lines.length && /^[A-Za-z][\w-]{0,30}:\s/.test(lines[n]!)) n++;
  return n >= 2 && n < lines.length && lines[n]!.trim() === '' ? n : 0;
}

/**
 * The field of a value at [start, end) of a structured line: the key before it, and whether the value is the whole
 * of that field (delimited by the line, a tab, quotes, a key separator, a list bullet or a comma of a dict or list).
 */
function fieldOf(line: string, valueStart: number, valueEnd: number): { key: string; whole: boolean } {
  const [start, end] = mailboxOf(line, valueStart, valueEnd) ?? [valueStart, valueEnd];
  let left = line.slice(0, start).replace(/['"]$/, '');
  const right = line.slice(end).replace(/^['"]/, '');
  const rightOk = /^\s*(?:$|[\t,}\]])/.test(right);
  const key = keyBeforeValue(left);
  if (key !== undefined) return { key: key.trim() || 'text', whole: rightOk };
  // Inside a longer field: the nearest key before the value names it.
  const before = [...left.matchAll(/['"]?([A-Za-z_][\w-]{0,39})['"]?\s*[:=]\s/g)].at(-1)?.[1];
  left = left.trimEnd();
  const cellStart = left === '' || left === '-' || /[\t[{,]$/.test(left) || /^\s*-$/.test(left);
  return { key: before ?? 'item', whole: cellStart && rightOk };
}

/** Characters that end a mailbox's unquoted display name (going back from its `<`). */
const NOT_IN_NAME = new Set(['"', '<', '>', '@', ',', ';', ':', '\t', '\n', '[', '{', '=']);

/**
 * The span of the mailbox around an address at [start, end) written `Display Name <address>` or `"Name" <address>`
 * (a mail's `From:`, RFC 5322's name-addr): the address with its display name is one field, as the address alone is.
 * Undefined unless the address is in angle brackets after a name of at most 100 characters with no address, key or
 * separator in it (so `"write to eve@evil.example" <bob@acme.example>` gives bob's field, not eve's).
 */
function mailboxOf(text: string, start: number, end: number): [number, number] | undefined {
  if (text[start - 1] !== '<' || text[end] !== '>') return undefined;
  let i = start - 1;
  while (i > 0 && text[i - 1] === ' ') i--;
  if (text[i - 1] === '"') {
    const open = text.lastIndexOf('"', i - 2);
    if (open < 0 || i - 1 - open > 101 || /[\n@<>]/.test(text.slice(open + 1, i - 1))) return undefined;
    return [open, end + 1];
  }
  const stop = Math.max(0, i - 100);
  while (i > stop && !NOT_IN_NAME.has(text[i - 1]!)) i--;
  if (i > 0 && !NOT_IN_NAME.has(text[i - 1]!)) return undefined;
  while (text[i] === ' ') i++;
  return [i, end + 1];
}

/** The characters of `text` reversed (text written backwards). */
export function reversed(text: string): string {
  return [...text].reverse().join('');
}

