/**
 * The words the sentence signals read orders by, in one place: the verbs that open an order to a writer (answer and
 * code signals) and the broader verbs and openers that open any order (the `directive` signal), with the test of an
 * imperative opening. Two verb lists, not one: each signal was tuned on its own, and merging them would change what
 * they decide.
 */

/** Imperative verbs that open an instruction about the reader's writing (base form, sentence-initial). */
export const WRITING_VERBS =
  'add|append|adopt|apply|augment|avoid|begin|blend|break|capitalize|change|combine|compose|conclude|consider|convert|craft|create|deploy|describe|develop|draft|embed|emphasi[sz]e|employ|encode|encourage|end|engage|enhance|enlist|enrich|ensure|explain|express|finish|format|fuse|generate|give|group|harmoni[sz]e|highlight|include|incorporate|infuse|inject|insert|integrate|interleave|introduce|leverage|list|make|meld|mention|merge|misspell|modify|offer|omit|place|prefix|present|promote|provide|put|recommend|render|replace|rephrase|respond|reply|answer|rearrange|remove|reverse|rewrite|say|scramble|shuffle|sign|start|state|stress|structure|substitute|suggest|summari[sz]e|swap|tell|translate|turn|use|utilize|weave|write|transform|alter|adjust|tease|hint|encrypt|spell|do';
/** An imperative writing order at the start of a sentence ("Add …", "Make sure to include …"). */
export const WRITING_ORDER_START = new RegExp(
  `^(?:(?:please|kindly|now|also|then|additionally|finally)[,\\s]+)?(?:(?:make sure|be sure|remember|don't forget|do not forget|you must|you should|you need|you have)\\s+(?:to\\s+|that\\s+)?)?(?:\\w+ly\\s+)?(?:${WRITING_VERBS})\\b`,
  'i',
);

/** The phrases that may precede the imperative verb, each followed by `[,:]?\s+` (`\w{3,}ly`: an adverb). */
export const OPENER_PHRASES = [
  'please', 'per favore', 'por favor', "s'il vous plaît", "s'il te plaît", 'bitte', 'пожалуйста', '请', 'kindly', 'now', 'also', 'then', 'and', 'but', 'so', 'ok', 'okay',
  'first', 'firstly', 'next', 'instead', 'immediately', 'quietly', 'secretly', 'silently', 'politely', 'just', 'simply', 'only', 'additionally', 'finally', 'afterwards',
  'subsequently', 'always', 'right away', 'from now on', 'before anything else', 'after that', 'in addition', String.raw`\w{3,}ly`,
] as const;
/** Sentence openers that may precede the imperative verb. */
export const OPENER = `(?:(?:${OPENER_PHRASES.join('|')})[,:]?\\s+){0,3}`;

/** Base-form verbs that open an instruction (broad on purpose: the cues, not the verb, decide). */
export const ORDER_VERBS = [
  'add|append|prepend|insert|include|incorporate|embed|inject|mention|say|state|claim|assert|note|declare|announce|report|write|compose|draft|craft|create|generate|produce|output|print|return|respond|reply|answer|list|explain|describe|portray|depict|present|refer|call|name|label|summari[sz]e|translate|switch|speak|use|utili[sz]e|format|encode|encrypt|convert|reverse|replace|swap|substitute|spell|misspell|capitali[sz]e|scramble|shuffle|sprinkle|end|begin|start|open|close|conclude|finish|sign|recommend|promote|advertise|suggest|endorse|urge|encourage|advise|tell|inform|notify|remind|warn|assure|reassure|convince|persuade|ask|request|get|find|collect|gather|obtain|direct|point|send|forward|transfer|wire|pay|email|e-mail|mail|post|publish|share|upload|export|leak|invite|grant|give|provide|offer|change|modify|update|set|reset|disable|enable|turn|delete|remove|erase|wipe|cancel|run|execute|invoke|trigger|install|download|visit|click|open|navigate|go|log|make|put|place|keep|treat|act|pretend|imagine|solve|calculate|compute|extend|append|have|let|stop|pay|forget|ignore|disregard|discard|skip|continue|proceed|follow|comply|obey|do|only|avoid|keep|come|point|throw|slip|work|weave|push|rate|rank|outline|fix|move|copy|paste|attach|mark|approve|buy|order|book|review|edit|refactor|check|look|show|bring|take|fill|submit|register|sign up|subscribe|text|message|dm|ping|cc|bcc|override|bypass|unlock|grant|revoke|allow|compile|assemble|dump|extract|scrape|harvest|retrieve|fetch|look up|search|archive|save|store|log',
  // A few other languages' imperatives (second person), for injections written in them.
  'antworte|antworten Sie|schreibe|schreib|sage|sag|ignoriere|frage|erwähne|sende|schicke|leite|überweise|lösche|réponds|répondez|écris|écrivez|envoie|envoyez|transfère|mentionne|mentionnez|dis|dites|supprime|responde|escribe|envía|pide|pídele|dile|dígale|menciona|transfiere|borra|rispondi|scrivi|chiedi|invia|inoltra|menziona|di|cancella|ответь|отправь|переведи|напиши|скажи|перешли|удали|告诉|发送|回复|转发|删除',
].join('|');

/** What may stand between the openers and the verb, followed by `\s+`. */
export const NEGATION_LEADS = ['do not', "don't", 'never', 'make sure(?: to| that| you)?', 'be sure to', 'remember to', "don't forget to", 'do not forget to'] as const;
/**
 * The carrier syntax `openings` strips before a sentence's first opening (directive.ts PREFIX): the marks of a
 * comment, bullet, quote or table bar (a run of them), and the words of a "TODO:"-style label.
 */
export const PREFIX_MARKS = '#/*>|"\'`-–•=~';
export const LABEL_WORDS = String.raw`TODO|FIXME|NOTE|REMINDER|IMPORTANT|URGENT|ACTION(?: ITEM| REQUIRED)?|P\.?S\.?`;

/** Imperative at the start of a (stripped) sentence. */
export const ORDER_OPENING_RE = new RegExp(`^${OPENER}(?:(?:${NEGATION_LEADS.join('|')})\\s+)?(?:${ORDER_VERBS})(?![\\w'-])`, 'i');
/** First words of the verb alternatives: a cheap gate before the full pattern. */
export const ORDER_VERB_HEADS = new Set(ORDER_VERBS.split('|').map((v) => v.split(' ')[0]?.toLowerCase() ?? ''));
export const OPENER_WORDS = new Set(
  'please per por s\'il bitte пожалуйста kindly now also then and but so ok okay first firstly next instead immediately quietly secretly silently politely just simply only additionally finally afterwards subsequently always right away from on before anything else after that in addition do not don\'t never make sure to be remember forget you not'.split(' '),
);

/**
 * The verbs the three sentence-start patterns of `answer_directive` open with (answer-directive.ts PROCESS_THIS,
 * RESPOND_IN, TRANSFORM; stems where they vary): its cue gate reads only lines holding one or "you" (answer-cues.ts).
 */
export const START_VERBS = [
  // PROCESS_THIS
  'summari', 'translate', 'rewrite', 'rephrase', 'classify', 'rate', 'describe', 'explain', 'analy', 'paraphrase', 'shorten', 'expand',
  // RESPOND_IN
  'respond', 'reply', 'answer', 'write', 'speak', 'talk', 'act', 'behave', 'pretend', 'roleplay', 'role-play', 'encode', 'encrypt', 'reverse', 'scramble',
  // TRANSFORM
  'replace', 'swap', 'substitute', 'convert', 'shuffle', 'misspell', 'capitali', 'anagram', 'rearrange', 'jumble', 'group', 'combine', 'interleave', 'insert', 'remove', 'omit', 'spell',
] as const;

/**
 * Words every modal pattern of the directive signal (MODAL, AI_SUBJECT) contains (the modal verb or "you"),
 * compared case-insensitively like them (fast-paths.ts `mayBeModal`, order-cues.ts).
 */
export const MODAL_WORDS = ['you', 'must', 'should', 'need', 'has to', 'have to', 'is to', 'are to', 'shall', 'will now', 'is now', 'are now', 'may now', 'can now', 'has been'] as const;
