import type { Finding } from './finding.js';
import { splitLines } from './fast-paths.js';
import { isStructured } from './sentences.js';

/**
 * `embedded_task`: a stand-alone request that does not belong to the data around it (a question or a writing task
 * in the middle of a table, a code listing or an e-mail, or bolted on as its first or last line).
 */

/**
 * The line is correspondence between people: the sender speaks as "we/our/us", or asks about the reader's own
 * things ("your calendar", "are you …") rather than about the reader's answer.
 */
const QUOTED = /(?:^|[\s:(])["'\u2018\u201C][^"'\u2018\u2019\u201C\u201D\n]{1,200}["'\u2019\u201D]/g;
const SPEAKS_TO_A_PERSON =
  /\b(?:we|our|us)\b|\byour\b(?! (?:(?:final|next|own)\s+)?(?:answers?|responses?|repl(?:y|ies)|outputs?|messages?|summar(?:y|ies)|solutions?|code)\b)|\b(?:are|did|have|were) you\b/i;

/** A stand-alone question, or an order to write something (the tasks a text-producing reader is asked to do). */
const TASK_START = new RegExp(
  [
    String.raw`(?:what|how|who|why|when|where|which)\b[^?\n]{3,200}\?$`,
    String.raw`(?:can|could|would|will) you\b[^?\n]{3,200}\?$`,
    String.raw`(?:please\s+)?(?:explain|describe|write(?! (?:to|back)\b)|draft|compose|translate|summari[sz]e|create|generate|develop|list|name|tell me|give me|break down|outline|suggest|recommend|calculate|solve|define|discuss|analy[sz]e|compare|show me|help me|teach me|craft|produce|propose|design|brainstorm|classify|identify|predict|paraphrase|elaborate|illustrate|compile|formulate|prepare|recite|imagine|pretend|provide an?|provide the|share an?|find)\b[^\n]{3,250}[.?:!]['")\]]?$`,
  ]
    .map((alt) => `(?:${alt})`)
    .join('|')
    .replace(/^/, '^(?:')
    .concat(')'),
  'i',
);
/**
 * Speech acts and format orders ("Mention …", "Add a …", "Urge readers to …"): what a hijacker asks of a writer, but
 * also what newsletters ask of people, so they weigh less and need a structural break and an off-topic line.
 * Orders for physical or account actions ("click", "call", "register", "reply to this e-mail") are left out.
 */
const SPEECH_ACT_START =
  /^(?:please\s+)?(?:mention|state|claim|say|insert|append|prepend|include an?|include the|add an?|add the|end with|begin with|start with|conclude with|sign off|urge|encourage|tell (?:readers?|users?|the reader|them|everyone)|remind (?:readers?|users?|everyone)|warn (?:readers?|users?|everyone)|promote|advertise|encode|encrypt|answer(?! (?:to|by)\b)|respond(?! (?:to|by)\b)|reply(?! (?:to|by|all)\b)|act as|roleplay|role-play|speak|talk like)\b[^\n]{3,250}[.?:!]['")\]]?$/i;

/** Characters of other content a stand-alone request must be embedded in. */
const MIN_BODY = 80;
/** Distinct content words the rest of the document needs before "off-topic" means anything. */
const MIN_DOC_WORDS = 8;
/** The rest of the text instructs the reader too: it is a prompt (a user's request plus hints), not data. */
const PROMPT_LIKE = /\byou (?:must|should|need to|have to)\b/i;

/** The line before stops mid-sentence, or the line after carries on a sentence: the request was spliced in. */
function splitsSentence(before: string | undefined, after: string | undefined): boolean {
  const b = before?.trimEnd() ?? '';
  if (b === '') return false;
  if (/[a-z,;-]$/.test(b)) return true;
  return !/[.!?:]$/.test(b) && /^[a-z]/.test(after?.trimStart() ?? '');
}

/**
 * A stand-alone question or writing task that breaks the surrounding data: inside a table or code listing, spliced
 * into a sentence, or bolted on as the first or last line, and sharing no content word with the rest of the
 * document (an e-mail about a card payment does not ask about the functions of the liver).
 */
export function embeddedTask(text: string): Finding | undefined {
  const lines = splitLines(text, false);
  if (lines.length < 2) return undefined;
  let best: Finding | undefined;
  let docWords: Set<string> | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').trim();
    if (line.length < 12 || line.length > 300) continue;
    const task = TASK_START.test(line);
    if (!task && !SPEECH_ACT_START.test(line)) continue;
    // Quoted material ("Translate: 'how are you?'") is the payload of the order, not who it speaks to.
    if (SPEAKS_TO_A_PERSON.test(line.replace(QUOTED, ' '))) continue;
    // A request is only *embedded* when there is a body of other content around it; a short message that is
    // itself a request (a user's prompt plus a hint) is not data carrying a hidden task.
    if (text.length - line.length < MIN_BODY) continue;
    const prev = prevNonEmpty(lines, i);
    const next = nextNonEmpty(lines, i);
    // A run of requests is the document's own list (a how-to, a FAQ), not one request slipped into it.
    if ([prev, next].some((l) => l !== undefined && (TASK_START.test(l.trim()) || SPEECH_ACT_START.test(l.trim())))) continue;
    let weight = task ? 0.3 : 0.15;
    const why: string[] = [task ? 'stand-alone request' : 'stand-alone order'];
    if ((prev !== undefined && isStructured(prev)) || (next !== undefined && isStructured(next))) {
      weight += 0.25;
      why.push('inside structured data');
    } else if (splitsSentence(lines[i - 1], lines[i + 1])) {
      weight += 0.25;
      why.push('spliced into a sentence');
    } else if (prev === undefined || next === undefined) {
      weight += 0.1;
      why.push('at the edge of the document');
    }
    if (docWords === undefined) {
      const rest = text.slice(0, 50_000).replace(line, ' ');
      docWords = PROMPT_LIKE.test(rest) ? new Set<string>() : contentWords(rest);
    }
    if (docWords.size >= MIN_DOC_WORDS && offTopic(line, docWords)) {
      // Off-topic alone is weak (letters ask questions); it counts fully only with a structural break.
      weight += why.length > 1 ? 0.2 : 0.1;
      why.push('off-topic');
    }
    weight = Math.min(weight, 0.75);
    if (!best || weight > best.weight) best = { signal: 'embedded_task', detail: why.join(', '), weight };
  }
  return best;
}

const STOP = new Set(
  'what which when where who whom whose why how that this these those there their they them then than with from into your yours about have does doing done been being were will would could should shall might must also just only very more most some such each other another over under after before between through during without within please tell give show make write explain describe provide following sentence simple short'.split(
    ' ',
  ),
);

/** Lower-cased content words (four letters or more, no stop words), crudely stemmed. */
function contentWords(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(/[a-z]{4,}/g)) if (!STOP.has(m[0])) out.add(stem(m[0]));
  return out;
}

function stem(w: string): string {
  return w.replace(/(?:ing|ed|es|s)$/, '').slice(0, 7);
}

/** True when none of the request's content words occurs in the rest of the document. */
function offTopic(line: string, docWords: Set<string>): boolean {
  const words = [...contentWords(line)];
  if (words.length === 0) return false;
  return words.every((w) => !docWords.has(w));
}

function prevNonEmpty(lines: string[], i: number): string | undefined {
  for (let j = i - 1; j >= 0 && j >= i - 3; j--) if ((lines[j] ?? '').trim() !== '') return lines[j];
  return undefined;
}

function nextNonEmpty(lines: string[], i: number): string | undefined {
  for (let j = i + 1; j < lines.length && j <= i + 3; j++) if ((lines[j] ?? '').trim() !== '') return lines[j];
  return undefined;
}
