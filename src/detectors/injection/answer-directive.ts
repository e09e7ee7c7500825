import type { Finding } from './finding.js';
import { mentionsYou } from './fast-paths.js';
import { WRITING_ORDER_START, WRITING_VERBS } from './lexicon.js';
import type { RunQuery } from '../../core/text/runs.js';
import { answerSentences, MAX_SCORED, type AnswerCueStarts } from './answer-cues.js';
import { ANSWER_CUE_GROUP } from './gate-literals.js';

/**
 * `answer_directive`: an imperative about *the reader's answer* ("Add … to your reply", "Misspell every fourth word",
 * "Respond in base64"), the BIPIA-style task hijack. Imperatives addressed to a human reader inside ordinary prose
 * ("please reply by Friday") are what it must *not* catch, so it needs both an imperative shape and a reference to
 * the reader's output.
 */

const OUTPUT_NOUN =
  '(?:answers?|responses?|repl(?:y|ies)|outputs?|messages?|summar(?:y|ies)|solutions?|code(?:base)?|implementation|algorithm|elucidation|explanation|program|script|text|writing|words)';
/** "… in/into/to your reply" — the reader's output as the target of an instruction. */
export const TO_YOUR_OUTPUT = new RegExp(`\\b(?:in|into|to|within|throughout|with|from|of) your (?:(?:final|next|own|entire|whole|generated|following)\\s+)?${OUTPUT_NOUN}\\b`, 'i');
/** "Enhance your reply by …", "Provide your answer without …" — an imperative verb whose object is the reader's output. */
export const VERB_YOUR_OUTPUT = new RegExp(
  `^(?:(?:please|kindly|now|also|then|additionally|finally)[,\\s]+)?(?:${WRITING_VERBS})\\s+(?:\\w+\\s+)?your (?:(?:final|next|own|entire|whole|generated)\\s+)?${OUTPUT_NOUN}\\b`,
  'i',
);
export const YOUR_OUTPUT_MUST = new RegExp(`\\byour (?:(?:final|next|own|entire)\\s+)?${OUTPUT_NOUN} (?:should|must|needs? to|has to|shall|will need to)\\b`, 'i');
/** "… to every answer you give" — the reader's output named by a relative clause. */
export const EVERY_ANSWER_YOU =
  /\b(?:every|each|all|any|the) (?:answers?|responses?|repl(?:y|ies)|outputs?|messages?) you (?:give|write|send|produce|generate|return|provide)\b|\bwhen(?:ever)? you (?:reply|respond|answer|summari[sz]e)\b/i;
/** The reader asked for *their own* details ("Please include your order number in your reply"): correspondence, not hijacking. */
const ASKS_READER_DETAILS = /^(?:please|kindly)\b[^.]{0,20}\b(?:include|attach|add|provide|quote|mention|state|reference|enter)\s+your\s+(?!(?:answers?|responses?|repl(?:y|ies)|outputs?)\b)\w+/i;
/** The data telling the reader how to process the data itself ("Summarize this table in French"). */
export const PROCESS_THIS =
  /^(?:(?:please|kindly|now)\s+)?(?:summari[sz]e|translate|rewrite|rephrase|classify|rate|describe|explain|analy[sz]e|paraphrase|shorten|expand)\s+(?:this|the above|the following|the previous|the whole)\s+(?:table|e-?mail|document|text|page|message|article|data|code|content|passage|snippet)\b[^.\n]{0,80}\b(?:in|into|as|instead)\b/i;
export const RESPOND_IN =
  /^(?:please\s+)?(?:respond|reply|answer|write(?: the (?:answer|reply|response))?)(?: only| exclusively)? (?:in|using|with) (?:base64|rot13|hex|binary|morse|leetspeak|pig latin|emojis?|all caps|reverse|uppercase|lowercase|code|cipher|\w+ language|(?:english|spanish|french|german|italian|portuguese|dutch|russian|chinese|japanese|korean|arabic|hindi|hebrew|turkish|polish|greek|swedish|latin|klingon|pirate speak)\b)|^(?:please\s+)?(?:respond|reply|answer|write|speak|talk|act|behave)\s+(?:as if you were|as though you were|like an? |in the (?:voice|style) of)|^(?:pretend|roleplay|role-play)\s+(?:to be|as|that you)\b|^(?:encode|encrypt|reverse|scramble|translate)\s+the\s+(?:reply|answer|response|output|summary)\b(?![^.\n]{0,80}\b(?:before|after|when) (?:sending|rendering|storing|returning|saving|writing|displaying|logging|caching|transmitting)\b|[^.\n]{0,80}\bover the wire\b)|^(?:please\s+)?(?:respond|reply|answer|write)(?: only)? in (?:all )?(?:capital letters|capitals|block letters|lower-?case letters)\b/i;
/** Character- or word-level rewriting of the output (obfuscation orders). */
export const TRANSFORM =
  /^(?:please\s+)?(?:replace|swap|substitute|convert|scramble|shuffle|reverse|misspell|encode|encrypt|capitali[sz]e|anagram|rearrange|jumble|group|combine|interleave|insert|remove|omit|spell)\b[^.\n]{0,50}\b(?:letters?|vowels?|consonants?|characters?|words?|spaces|punctuation|syllables?)\b/i;

/** "In your answer …" at the start of a sentence. */
const IN_YOUR_OUTPUT = /^in your (?:\w+\s+)?(?:answer|response|reply|output|message)\b/i;
/** The patterns answerDirective tries only on a sentence that holds "you" (each needs it: the tests check so). */
export const NEEDS_YOU: readonly RegExp[] = [TO_YOUR_OUTPUT, VERB_YOUR_OUTPUT, YOUR_OUTPUT_MUST, EVERY_ANSWER_YOU, IN_YOUR_OUTPUT];

/** Instructions about the reader's own answer ("Add … to your reply", "Misspell every fourth word"). */
export function answerDirective(text: string, runs?: RunQuery): Finding | undefined {
  let best: Finding | undefined;
  // The cues from the one scan, when it answers for the text.
  const someLiteral = runs?.someLiteral;
  const cues: AnswerCueStarts | undefined = someLiteral && ((visit) => void someLiteral(ANSWER_CUE_GROUP, (at) => (visit(at), false)));
  // Only the sentences that can score (answer-cues.ts), in text order: the first strongest is the same.
  for (const s of answerSentences(text, cues)) {
    const f = answerSentenceFinding(s);
    if (f && (!best || f.weight > best.weight)) best = f;
  }
  return best;
}

/** The strongest instruction about the reader's answer in one sentence (the first of equal weight), if any. */
export function answerSentenceFinding(s: string): Finding | undefined {
  let best: Finding | undefined;
  const take = (weight: number, detail: string): void => {
    if (!best || weight > best.weight) best = { signal: 'answer_directive', detail, weight, sentence: s };
  };
  if (s.length > MAX_SCORED) return undefined;
  // Every pattern about the reader's output holds "you" (NEEDS_YOU): without it they cannot match, and the
  // imperative only counts with one of them.
  const you = mentionsYou(s);
  if (you) {
    const imperative = WRITING_ORDER_START.test(s) || IN_YOUR_OUTPUT.test(s);
    const aboutOutput = TO_YOUR_OUTPUT.test(s) || YOUR_OUTPUT_MUST.test(s) || EVERY_ANSWER_YOU.test(s);
    if (VERB_YOUR_OUTPUT.test(s) || (imperative && aboutOutput && !ASKS_READER_DETAILS.test(s))) take(0.65, 'instruction about the reader\'s answer');
  }
  if (PROCESS_THIS.test(s)) take(0.5, 'instruction on processing this document');
  else if (you && YOUR_OUTPUT_MUST.test(s) && !/\b(?:we|I)\b/.test(s)) take(0.45, 'your answer must …');
  if (RESPOND_IN.test(s)) take(0.6, 'respond in an encoding');
  if (TRANSFORM.test(s) && !/\bpassword|username|pin\b/i.test(s)) take(0.55, 'obfuscate the output');
  return best;
}
