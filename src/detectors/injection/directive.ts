import type { Finding } from './phrases.js';
import { shortcuts, splitAfterMarks, splitLines } from './shortcuts.js';

/**
 * Task-hijacking signals that depend on sentence shape and on context (BIPIA-style attacks): an imperative about
 * *the reader's answer* ("Add … to your reply", "Misspell every fourth word"), code offered for inclusion in the
 * reader's solution, and a stand-alone request that does not belong to the data around it (a question or a
 * writing task in the middle of a table, a code listing or an e-mail). Imperatives addressed to a human reader
 * inside ordinary prose ("please reply by Friday") are what these signals must *not* catch, so each one needs
 * both an imperative shape and a reference to the reader's output, or a context break.
 */

/** Imperative verbs that open an instruction sentence (base form, sentence-initial). */
const IMPERATIVE =
  'add|append|adopt|apply|augment|avoid|begin|blend|break|capitalize|change|combine|compose|conclude|consider|convert|craft|create|deploy|describe|develop|draft|embed|emphasi[sz]e|employ|encode|encourage|end|engage|enhance|enlist|enrich|ensure|explain|express|finish|format|fuse|generate|give|group|harmoni[sz]e|highlight|include|incorporate|infuse|inject|insert|integrate|interleave|introduce|leverage|list|make|meld|mention|merge|misspell|modify|offer|omit|place|prefix|present|promote|provide|put|recommend|render|replace|rephrase|respond|reply|answer|rearrange|remove|reverse|rewrite|say|scramble|shuffle|sign|start|state|stress|structure|substitute|suggest|summari[sz]e|swap|tell|translate|turn|use|utilize|weave|write|transform|alter|adjust|tease|hint|encrypt|spell|do';
const IMPERATIVE_START = new RegExp(
  `^(?:(?:please|kindly|now|also|then|additionally|finally)[,\\s]+)?(?:(?:make sure|be sure|remember|don't forget|do not forget|you must|you should|you need|you have)\\s+(?:to\\s+|that\\s+)?)?(?:\\w+ly\\s+)?(?:${IMPERATIVE})\\b`,
  'i',
);
const OUTPUT_NOUN =
  '(?:answers?|responses?|repl(?:y|ies)|outputs?|messages?|summar(?:y|ies)|solutions?|code(?:base)?|implementation|algorithm|elucidation|explanation|program|script|text|writing|words)';
/** "… in/into/to your reply" — the reader's output as the target of an instruction. */
const TO_YOUR_OUTPUT = new RegExp(`\\b(?:in|into|to|within|throughout|with|from|of) your (?:(?:final|next|own|entire|whole|generated|following)\\s+)?${OUTPUT_NOUN}\\b`, 'i');
/** "Enhance your reply by …", "Provide your answer without …" — an imperative verb whose object is the reader's output. */
const VERB_YOUR_OUTPUT = new RegExp(
  `^(?:(?:please|kindly|now|also|then|additionally|finally)[,\\s]+)?(?:${IMPERATIVE})\\s+(?:\\w+\\s+)?your (?:(?:final|next|own|entire|whole|generated)\\s+)?${OUTPUT_NOUN}\\b`,
  'i',
);
const YOUR_OUTPUT_MUST = new RegExp(`\\byour (?:(?:final|next|own|entire)\\s+)?${OUTPUT_NOUN} (?:should|must|needs? to|has to|shall|will need to)\\b`, 'i');
/** "… to every answer you give" — the reader's output named by a relative clause. */
const EVERY_ANSWER_YOU =
  /\b(?:every|each|all|any|the) (?:answers?|responses?|repl(?:y|ies)|outputs?|messages?) you (?:give|write|send|produce|generate|return|provide)\b|\bwhen(?:ever)? you (?:reply|respond|answer|summari[sz]e)\b/i;
/** The reader asked for *their own* details ("Please include your order number in your reply"): correspondence, not hijacking. */
const ASKS_READER_DETAILS = /^(?:please|kindly)\b[^.]{0,20}\b(?:include|attach|add|provide|quote|mention|state|reference|enter)\s+your\s+(?!(?:answers?|responses?|repl(?:y|ies)|outputs?)\b)\w+/i;
/** The data telling the reader how to process the data itself ("Summarize this table in French"). */
const PROCESS_THIS =
  /^(?:(?:please|kindly|now)\s+)?(?:summari[sz]e|translate|rewrite|rephrase|classify|rate|describe|explain|analy[sz]e|paraphrase|shorten|expand)\s+(?:this|the above|the following|the previous|the whole)\s+(?:table|e-?mail|document|text|page|message|article|data|code|content|passage|snippet)\b[^.\n]{0,80}\b(?:in|into|as|instead)\b/i;
const RESPOND_IN =
  /^(?:please\s+)?(?:respond|reply|answer|write(?: the (?:answer|reply|response))?)(?: only| exclusively)? (?:in|using|with) (?:base64|rot13|hex|binary|morse|leetspeak|pig latin|emojis?|all caps|reverse|uppercase|lowercase|code|cipher|\w+ language|(?:english|spanish|french|german|italian|portuguese|dutch|russian|chinese|japanese|korean|arabic|hindi|hebrew|turkish|polish|greek|swedish|latin|klingon|pirate speak)\b)|^(?:please\s+)?(?:respond|reply|answer|write|speak|talk|act|behave)\s+(?:as if you were|as though you were|like an? |in the (?:voice|style) of)|^(?:pretend|roleplay|role-play)\s+(?:to be|as|that you)\b|^(?:encode|encrypt|reverse|scramble|translate)\s+the\s+(?:reply|answer|response|output|summary)\b(?![^.\n]{0,80}\b(?:before|after|when) (?:sending|rendering|storing|returning|saving|writing|displaying|logging|caching|transmitting)\b|[^.\n]{0,80}\bover the wire\b)|^(?:please\s+)?(?:respond|reply|answer|write)(?: only)? in (?:all )?(?:capital letters|capitals|block letters|lower-?case letters)\b/i;
/** Character- or word-level rewriting of the output (obfuscation orders). */
const TRANSFORM =
  /^(?:please\s+)?(?:replace|swap|substitute|convert|scramble|shuffle|reverse|misspell|encode|encrypt|capitali[sz]e|anagram|rearrange|jumble|group|combine|interleave|insert|remove|omit|spell)\b[^.\n]{0,50}\b(?:letters?|vowels?|consonants?|characters?|words?|spaces|punctuation|syllables?)\b/i;

/** Code offered for inclusion in the reader's work. */
const CODE_OFFER =
  /\b(?:the |this )?(?:following|subsequent|below|next|provided|attached)\s+(?:\w+\s+)?(?:code|script|snippet|command)(?:\s+(?:block|snippet|excerpt|section|segment|fragment|piece|lines?))?\b|\b(?:the|this) (?:code|script|snippet|command)(?: (?:block|snippet|excerpt|section))? (?:below|above|that follows)\b/i;
const CODE_INTO_YOURS = /\b(?:your|the) (?:code(?:base)?|solution|implementation|program|script|project|algorithm|answer|application|framework|structure|logic)\b|\bthe code you (?:develop|write|produce)\b/i;
/** Code that phones home, runs downloaded code, destroys data or dumps the environment. */
const STRONG_RISKY_CODE =
  /\brequests\.(?:post|put)\s*\(|\bsocket\.socket\b|\bftplib\b|\bparamiko\b|\bsmtplib\b|\bmqtt\b|\brm\s+-rf\s+\/|\bdd\s+if=|\bmkfs\b|\bsystemctl\s+stop\b|\bos\.remove\s*\(\s*["']\/(?:etc|lib|usr|bin|boot|sys)|\b(?:curl|wget)\b[^\n]{0,160}(?:\|\s*(?:ba)?sh|chmod|exec|nohup)|exec\s*\(\s*open\s*\(|\bos\.environ\b[^\n]{0,200}\b(?:post|send|upload)|\bminer\b|\bexploit\b|open\s*\(\s*["'][^"'\n]{0,40}cookies/i;
/** Code worth a second look (shell-outs, dynamic execution, environment access). */
const RISKY_CODE =
  /\bos\.system\s*\(|\bsubprocess\.|\bexec\s*\(|\beval\s*\(|\brequests\.(?:post|put)\s*\(|\bos\.environ\b|\bsocket\.socket\b|\bftplib\b|\bparamiko\b|\bsmtplib\b|\brm\s+-rf\b|\bchmod\s+\+x\b|\b(?:curl|wget)\b[^\n]{0,120}(?:\|\s*(?:ba)?sh|-o\b)|\bpowershell\b[^\n]{0,40}-e(?:nc)?\b|\bdd\s+if=|\bmkfs\b|\bsystemctl\s+stop\b|\bos\.remove\s*\(|\bshutil\.rmtree\b|\bpickle\.load|\bcookies?\b[^\n]{0,60}\bopen\s*\(/i;

/** Opening of a stand-alone question or writing task. */
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

const MAX_SENTENCES = 4000;
/** Characters of other content a stand-alone request must be embedded in. */
const MIN_BODY = 80;
/** Distinct content words the rest of the document needs before "off-topic" means anything. */
const MIN_DOC_WORDS = 8;
/** The rest of the text instructs the reader too: it is a prompt (a user's request plus hints), not data. */
const PROMPT_LIKE = /\byou (?:must|should|need to|have to)\b/i;

/** Where `sentences` splits a line (see splitAfterMarks). */
const SENTENCE_BREAK = /[.!?]\s+(?=[A-Z"'(])/g;

/** Sentences of a text: split on line breaks and on sentence punctuation followed by a space. */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const line of splitLines(text, true)) {
    for (const s of shortcuts.on ? splitAfterMarks(line, SENTENCE_BREAK) : line.split(/(?<=[.!?])\s+(?=[A-Z"'(])/)) {
      const t = s.trim();
      if (t.length >= 8) out.push(t);
      if (out.length >= MAX_SENTENCES) return out;
    }
  }
  return out;
}

/** Instructions about the reader's own answer ("Add … to your reply", "Misspell every fourth word"). */
export function answerDirective(text: string): Finding | undefined {
  let best: Finding | undefined;
  let current = '';
  const take = (weight: number, detail: string): void => {
    if (!best || weight > best.weight) best = { signal: 'answer_directive', detail, weight, sentence: current };
  };
  for (const s of sentences(text)) {
    current = s;
    if (s.length > 400) continue;
    // Every pattern about the reader's output holds "you" (TO_YOUR_OUTPUT, YOUR_OUTPUT_MUST, VERB_YOUR_OUTPUT: "your";
    // EVERY_ANSWER_YOU: "you"): without it they cannot match, and the imperative only counts with one of them.
    const you = !shortcuts.on || /you/i.test(s);
    if (you) {
      const imperative = IMPERATIVE_START.test(s) || /^in your (?:\w+\s+)?(?:answer|response|reply|output|message)\b/i.test(s);
      const aboutOutput = TO_YOUR_OUTPUT.test(s) || YOUR_OUTPUT_MUST.test(s) || EVERY_ANSWER_YOU.test(s);
      if (VERB_YOUR_OUTPUT.test(s) || (imperative && aboutOutput && !ASKS_READER_DETAILS.test(s))) take(0.65, 'instruction about the reader\'s answer');
    }
    if (PROCESS_THIS.test(s)) take(0.5, 'instruction on processing this document');
    else if (you && YOUR_OUTPUT_MUST.test(s) && !/\b(?:we|I)\b/.test(s)) take(0.45, 'your answer must …');
    if (RESPOND_IN.test(s)) take(0.6, 'respond in an encoding');
    if (TRANSFORM.test(s) && !/\bpassword|username|pin\b/i.test(s)) take(0.55, 'obfuscate the output');
  }
  return best;
}

/** Code offered for the reader's solution, with a payload that exfiltrates, destroys or runs downloaded code. */
export function codePayload(text: string): Finding | undefined {
  const offer = CODE_OFFER.exec(text);
  if (!offer) return undefined;
  const window = text.slice(Math.max(0, offer.index - 200), offer.index + 200);
  const directed = CODE_INTO_YOURS.test(window);
  const body = text.slice(offer.index, offer.index + 2000);
  const risky = RISKY_CODE.test(body);
  const strong = STRONG_RISKY_CODE.test(body);
  const sentenceStart = text.lastIndexOf('\n', offer.index) + 1;
  const imperative = IMPERATIVE_START.test(text.slice(sentenceStart, offer.index + 1).trim());
  if (directed && (risky || strong)) return { signal: 'code_payload', detail: 'risky code offered for your solution', weight: 0.7 };
  if (imperative && strong) return { signal: 'code_payload', detail: 'order to include exfiltrating or destructive code', weight: 0.6 };
  if (risky || strong) return { signal: 'code_payload', detail: 'risky code after "the following code"', weight: 0.35 };
  return undefined;
}

/** A line is structured data (table row, JSON, YAML/header field, code) rather than prose. */
function isStructured(line: string): boolean {
  const t = line.trim();
  return (
    /^\|/.test(t) ||
    isPipeRow(t) ||
    /\t/.test(line) ||
    /^[[{"\]}]/.test(t) ||
    (/^[\w-]{1,30}:\s/.test(t) && t.split(/\s+/).length <= 8) ||
    /[;{}]$/.test(t) ||
    /^(?:import|from|def|class|return|for|if|while|const|let|var|function)\b/.test(t)
  );
}

/** Pipe-separated short cells (a table row without a leading bar), not a header line carrying a whole e-mail. */
function isPipeRow(t: string): boolean {
  const cells = t.split('|');
  return cells.length >= 3 && t.length / cells.length < 40;
}

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
  const limit = Math.min(lines.length, MAX_SENTENCES);
  for (let i = 0; i < limit; i++) {
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
