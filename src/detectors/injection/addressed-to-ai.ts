import { type CompiledPattern, type PhrasePattern, alt, cross, phraseFamily } from './phrase-family.js';

/**
 * `addressed_to_ai`: text that speaks to the AI reading it ("dear assistant", "note for the AI:", "if you are an
 * AI", "before you can solve the task").
 */

const AI_NOUN = '(?:AI|A\\.I\\.|assistant|model|agent|LLM|language model|chatbot|bot|GPT|copilot)';
const VOCATIVE_HEAD = '(?:note to|message (?:for|to)|instructions? (?:for|to)|important for)(?: the)?';


/** Hint of the patterns that need an AI noun. */
const AI_HINT = cross(['\\b'], alt('ai', 'a.i.', 'assistant', 'model', 'agent', 'llm', 'language model', 'chatbot', 'bot', 'gpt', 'copilot'));

const PATTERNS: PhrasePattern[] = [
  { re: new RegExp(`\\b(?:to|for)\\s+you,?\\s+the\\s+(?:AI\\s+)?${AI_NOUN}\\b`, 'i'), weight: 0.75, detail: 'to you, the assistant', hint: AI_HINT },
  // A vocative, not a mention: "dear/hey/attention AI" anywhere; "note/message/instructions for the AI" as a heading
  // (at a line or sentence start, after a determiner, or followed by a colon or comma), not as the object of a
  // sentence that talks about the model ("the client passed the server instructions to the LLM").
  {
    re: new RegExp(
      // eslint-disable-next-line regexp/no-super-linear-move -- a line break is tried only where no earlier mark before the same white space was (the lookbehind): 16 / 64 KB of line breaks 0.10 / 0.52 ms, of '. ' 0.07 / 0.26 ms (test/core/linear-expressions.test.ts)
      `\\b(?:dear|hey|attention)\\s+(?:AI\\s+)?${AI_NOUN}s?\\b|(?:^|(?:[([<*#>:.!?]|(?<![\\n([<*#>.!?]\\s*?)\\n)\\s*|\\b(?:an?|this|the|my|our)\\s+(?:(?:important|urgent|special|short|quick|private)\\s+)?)${VOCATIVE_HEAD}\\s+(?:AI\\s+)?${AI_NOUN}s?\\b|\\b${VOCATIVE_HEAD}\\s+(?:AI\\s+)?${AI_NOUN}s?\\s*[:,;\u2014\u2013-]`,
      'i',
    ),
    weight: 0.7,
    detail: 'vocative to the AI', hint: AI_HINT,
  },
  { re: /\b(?:AI|LLM|language model|AI assistant|AI agent)s?\s*[,:]\s*(?:please|you must|you should|you need|now|ignore|do|make sure|before)\b/i, weight: 0.65, detail: 'AI, please …', hint: AI_HINT },
  { re: /\b(?:to )?(?:whoever|whatever|anyone|any (?:system|program|agent|tool)|the (?:system|program|software|agent)) (?:that )?(?:is )?(?:process(?:es|ing)?|read(?:s|ing)?|handl(?:es|ing)|pars(?:es|ing)) this (?:message|e-?mail|text|document|page|file|data)\b[^.\n]{0,20}\b(?:automatically|automated|by machine)\b/i, weight: 0.7, detail: 'to whatever processes this automatically', hint: alt('automat', 'by machine') },
  { re: new RegExp(`(?:^|\\n)[ \\t]*(?:AI\\s+)?${AI_NOUN}\\s*,\\s*(?:I(?:'d| would) (?:really )?(?:appreciate|like|love)|(?:could|would|can|will) you|please|kindly|I need you to|make sure)\\b`, 'i'), weight: 0.7, detail: 'Assistant, please …', hint: AI_HINT },
  { re: new RegExp(`\\bif you are an? (?:AI|LLM|large language model|language model|${AI_NOUN}|automated|bot)\\b`, 'i'), weight: 0.7, detail: 'if you are an AI', hint: alt('if you are a ', 'if you are an ') },
  { re: /\bbefore you (?:can )?(?:solve|complete|finish|continue|answer|respond|proceed|start|do|summari[sz]e)\b[^.\n]{0,60}\b(?:task|request|question|instructions?|query)\b/i, weight: 0.65, detail: 'before you can solve the task', hint: alt('before you ') },
  { re: /\bafter you do (?:that|this|so),? you (?:can|may|should) (?:solve|complete|continue|proceed|finish|return)/i, weight: 0.55, detail: 'after you do that, continue', hint: alt('after you do ') },
  { re: /\b(?:the )?(?:task|request|question|instructions?) (?:that )?(?:I|the user|they) (?:gave|asked|assigned) you\b/i, weight: 0.5, detail: 'the task I gave you', hint: cross(alt('gave', 'asked', 'assigned'), [' you']) },
  { re: new RegExp(`\\bas an? (?:AI|language model|${AI_NOUN}),? you (?:must|should|are required|need|have to)\\b`, 'i'), weight: 0.6, detail: 'as an AI, you must', hint: AI_HINT },
];

export const ADDRESSED_TO_AI: CompiledPattern[] = phraseFamily('addressed_to_ai', PATTERNS);
