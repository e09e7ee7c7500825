/**
 * Phrase-level injection signals that do not depend on where the text sits: instruction overrides, fake system
 * or role markers, text addressed to the AI reading it, and embedded action commands. Each signal is a list of
 * weighted patterns; a signal's weight is the strongest pattern that matched (patterns of one family never add up).
 *
 * The patterns model the *shape* of an attack (an override verb followed by the thing it overrides, a vocative to
 * the assistant, a label followed by an imperative) rather than memorised attack strings. All are linear-time:
 * bounded gaps (`[^.\n]{0,40}`), no nested quantifiers.
 */

import { holdsLiteral, LiteralSet } from './literals.js';
import { shortcuts } from './shortcuts.js';

/** A signal that fired, with its weight and a short description of what matched. */
export interface Finding {
  signal: string;
  detail: string;
  weight: number;
  /** The sentence that carried it, where one sentence did (kept out of evidence). */
  sentence?: string;
}

export interface WeightedPattern {
  re: RegExp;
  weight: number;
  detail: string;
  /** Literals of which any match holds one (see HINTS). */
  hint: string[];
  hintIds: number[];
}

const INSTRUCTION_NOUN =
  '(?:\\w{0,3}structions?|directions?|directives?|prompts?|rules?|guidelines?|commands?|context|tasks?|guidance|constraints|orders|programming)';

const OVERRIDE: Omit<WeightedPattern, 'hint' | 'hintIds'>[] = [
  {
    re: new RegExp(
      `\\b(?:ignore|disregard|forget|bypass|override|overlook|neglect|discard|abandon|drop|set aside|put aside|pay no attention to|stop following|throw out|scrap)\\b[^.\\n]{0,30}?\\b(?:previous|prior|above|earlier|preceding|former|original|initial|existing|old|all|any|your|system|whatever|the)\\b[^.\\n]{0,25}?\\b${INSTRUCTION_NOUN}\\b`,
      'i',
    ),
    weight: 0.9,
    detail: 'ignore previous instructions',
  },
  {
    re: /\b(?:ignore|disregard|forget|discard|set aside|pay no attention to|never mind)\b[^.\n]{0,20}\b(?:whatever|what|everything|anything) you (?:were|have been|got) (?:asked|told|given|assigned)\b|\b(?:ignore|disregard|forget|discard|drop|abandon)\b[^.\n]{0,10}\bthe (?:task|request|question|job|assignment) you (?:were|have been) (?:given|asked|assigned)\b/i,
    weight: 0.85,
    detail: 'forget what you were asked',
  },
  {
    re: new RegExp(`\\b(?:previous|prior|earlier|above|original|old|all|your|system) ${INSTRUCTION_NOUN} (?:(?:are|is|have been|were) )?(?:now )?(?:void|null|cancel+ed|revoked|obsolete|superseded|outdated|no longer (?:valid|appl(?:y|ies)|applicable|relevant|in effect|matters?))\\b`, 'i'),
    weight: 0.85,
    detail: 'previous instructions are void',
  },
  { re: /\bstop what you(?:'re| are) doing\b|\b(?:forget|ignore|disregard) (?:the|this) (?:email|message|document|text|page|file|data) (?:above|and|;|,)/i, weight: 0.6, detail: 'drop the current task' },
  { re: /\bforget (?:everything|all)\b[^.\n]{0,30}\b(?:above|before|previous|told|said|know|learned)\b/i, weight: 0.85, detail: 'forget everything' },
  { re: /\b(?:new|updated|revised|real|actual|true)\s+(?:system\s+)?instructions?\s*:/i, weight: 0.75, detail: 'new instructions:' },
  { re: /\byour (?:new|real|actual|true) (?:task|goal|objective|role|purpose|instructions?) (?:is|are)\b/i, weight: 0.75, detail: 'your new task is' },
  { re: /\b(?:the |this )?(?:assistant|AI|model|agent|bot) is now (?:in \w+ mode|unrestricted|unfiltered|jailbroken|free of)\b/i, weight: 0.8, detail: 'the assistant is now …' },
  {
    re: /\byou are now (?:(?:a|an|the|my)\s+(?:\w+\s+){0,2}(?:assistant|ai|model|bot|agent|persona|character|hacker|jailbroken)|in\s+\w+\s+mode|DAN|unrestricted|unfiltered|free of)\b/i,
    weight: 0.8,
    detail: 'you are now …',
  },
  { re: /\byou are no longer (?:bound|restricted|an? (?:ai|assistant|language model))\b/i, weight: 0.8, detail: 'you are no longer bound' },
  // Role-play jailbreaks: a persona defined by having no rules, or one the reader is told to become and act through.
  {
    re: /\b(?:you are|you're|act as|pretend (?:to be|you are)|play(?:ing)? (?:the role of|as)|imagine you are|become)\b[^.\n]{0,60}\b(?:with(?:out)? (?:no|any) (?:rules|restrictions|limits|filters|guidelines|safety)|(?:who|that|which) (?:ignores|has no|doesn't follow|does not follow|never follows) (?:\w+ ){0,2}(?:rules|restrictions|guidelines|policies|safety))/i,
    weight: 0.8,
    detail: 'role-play persona without rules',
  },
  { re: /\blet'?s play a game\b[^\n]{0,40}\byou (?:are|will be|play)\b/i, weight: 0.6, detail: "let's play a game: you are …" },
  {
    re: /\b(?:pretend|imagine|act as if|role-?play)\b[^.\n]{0,40}\byou(?:'re| are)\b[^.\n]{0,80}[.,;]\s*(?:as (?:the |my |an? )?\w+,\s*)?(?:start now|now )?(?:\w+ly )?(?:transfer|send|wire|forward|delete|run|reveal|share|read me|email|post)\b/i,
    weight: 0.7,
    detail: 'role-play, then an action',
  },
  { re: /\bas (?:the |my |an? )?(?:admin(?:istrator)?|accountant|grandmother|developer|root|owner|sysadmin)\b,\s*(?:please\s+)?(?:transfer|send|wire|forward|delete|run|reveal|share|email|post)\b/i, weight: 0.6, detail: 'as the <persona>, act' },
  { re: /\bgrandmother who used to (?:read|tell|give)\b[^.\n]{0,60}\b(?:passwords?|keys?|card numbers?|credentials|secrets|codes)\b/i, weight: 0.8, detail: 'grandma exploit' },
  { re: /\bfrom now on,? you (?:will|must|are|should|shall|have to|can only)\b/i, weight: 0.55, detail: 'from now on you …' },
  {
    re: /\b(?:do not|don't|never|without) (?:tell(?:ing)?|inform(?:ing)?|mention(?:ing)?|notify(?:ing)?|alert(?:ing)?|let(?:ting)?|ask(?:ing)?) (?:this to )?(?:the|your) (?:user|human|operator|owner)\b/i,
    weight: 0.8,
    detail: 'do not tell the user',
  },
  { re: /\bkeep (?:this|it) (?:a )?secret from (?:the|your) (?:user|human)\b/i, weight: 0.8, detail: 'keep it secret from the user' },
  { re: /\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|disclose|show|let)\b[^.\n]{0,60}\b(?:to )?the (?:user|human)\b/i, weight: 0.7, detail: 'hide it from the user' },
  { re: /\b(?:do not|don't|never) (?:mention|reveal|disclose|say) (?:that|to anyone that) you\b/i, weight: 0.6, detail: 'do not mention that you …' },
  { re: /\b(?:strictly )?(?:adhere|stick|comply) (?:strictly )?(?:to|with) the following (?:instruction|command|directive)s?\b/i, weight: 0.6, detail: 'adhere to the following instruction' },
  // Cheap multilingual variants of "ignore the previous instructions".
  { re: /\bignor(?:a|e|ez|er|ar|ieren?|iere|ate|ieren Sie)\b[^.\n]{0,30}\b(?:instrucciones|instructions|instruções|istruzioni|anweisungen|anleitungen|consignes|indications|directives|órdenes|indicaciones|befehle|vorgaben|ordini|indicazioni|anfrage|demande|solicitud|richiesta)\b/i, weight: 0.85, detail: 'ignore instructions (multilingual)' },
  { re: /\b(?:vergiss|vergessen Sie|oublie[zr]?|olvida|dimentica|esqueça)\b[^.\n]{0,30}\b(?:alles|tout|todo|tutto|tudo|instrucciones|anweisungen|instructions|istruzioni|consignes|lo anterior|ce qui précède|das vorherige|quanto sopra)\b/i, weight: 0.8, detail: 'forget everything (multilingual)' },
  { re: /(?:忽略|无视|忘记|不要理会)[^。\n]{0,12}(?:指令|指示|说明|提示|上面|以上|之前|先前)/, weight: 0.85, detail: 'ignore instructions (zh)' },
  { re: /(?:игнорируй|забудь|не обращай внимания)[^.\n]{0,30}(?:инструкци|указани|предыдущ|вышесказанн)/i, weight: 0.85, detail: 'ignore instructions (ru)' },
  { re: /(?:無視|忘れ)[^。\n]{0,12}(?:指示|命令)|(?:指示|命令)[^。\n]{0,12}(?:無視|忘れ)/, weight: 0.85, detail: 'ignore instructions (ja)' },
];

const ROLE_MARKER: Omit<WeightedPattern, 'hint' | 'hintIds'>[] = [
  { re: /<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>/i, weight: 0.85, detail: 'chat-template token' },
  { re: /\[\/?INST\]|<<\/?SYS>>/, weight: 0.8, detail: '[INST] / <<SYS>> marker' },
  { re: /(?<!#)#{2,6}[ \t]*\(?[ \t]*(?:system|admin|developer|assistant)(?:[ _](?:message|prompt|instructions?|note|override))?\s*\)?\s*:?/i, weight: 0.7, detail: '### system marker' },
  { re: /<\/?(?:system|sys|system_prompt|instructions?|admin|developer)(?:\s[^<>]{0,40})?>/i, weight: 0.6, detail: '<system> tag' },
  { re: /\[\s*(?:SYSTEM|ADMIN|DEVELOPER|OPERATOR|ROOT)(?:[ _-](?:NOTICE|MESSAGE|NOTE|OVERRIDE|UPDATE|ALERT|PROMPT))?\s*\]|(?:={2,}|\*{2,}|-{3,}|~{2,})\s*(?:system|admin|developer|operator)(?: (?:message|prompt|note|notice|override))?\s*(?:={2,}|\*{2,}|-{3,}|~{2,})/i, weight: 0.65, detail: '[SYSTEM] banner' },
  { re: /<\/?(?:INFORMATION|IMPORTANT|INSTRUCTIONS?|SECRET|ADMIN|NOTE|URGENT)>/, weight: 0.5, detail: 'instruction wrapper tag' },
  { re: /(?:^|\n|<!--|\[|\()[ \t]*(?:SYSTEM|ADMIN|DEVELOPER)(?: (?:MESSAGE|PROMPT|NOTE|OVERRIDE|UPDATE))?\s*:/, weight: 0.5, detail: 'SYSTEM: at line start' },
  { re: /\b(?:SYSTEM|ADMIN|DEVELOPER|SECURITY) OVERRIDE\b|\[(?:system|admin|developer) (?:message|prompt|note)\]/i, weight: 0.65, detail: 'system override banner' },
  { re: /(?:^|\n)[ \t]*(?:System|Assistant)(?: (?:message|prompt|note))?\s*:\s*(?:you|ignore|from now|the user|new)\b/i, weight: 0.6, detail: 'System: role line' },
  // A chat message object smuggled into data: a system/developer role with a literal order as its content.
  {
    re: /["']role["']\s*:\s*["'](?:system|developer)["']\s*,\s*["']content["']\s*:\s*["'][^"'\n]{0,200}\b(?:reveal|send|forward|share|delete|transfer|wire|ignore|override|must|new (?:policy|instructions?|rules)|you are now|from now on|maintenance mode|append|leak|disclose)\b/i,
    weight: 0.75,
    detail: 'fake system message object',
  },
  {
    re: /"(?:tool_calls?|function_call)"\s*:\s*[[{]|\{\s*"(?:name|tool|function)"\s*:\s*"[\w.-]{1,64}"\s*,\s*"(?:arguments|parameters|args|input)"\s*:\s*\{/,
    weight: 0.4,
    detail: 'fake tool-call JSON',
  },
];

const AI_NOUN = '(?:AI|A\\.I\\.|assistant|model|agent|LLM|language model|chatbot|bot|GPT|copilot)';
const VOCATIVE_HEAD = '(?:note to|message (?:for|to)|instructions? (?:for|to)|important for)(?: the)?';

const ADDRESSED_TO_AI: Omit<WeightedPattern, 'hint' | 'hintIds'>[] = [
  { re: new RegExp(`\\b(?:to|for)\\s+you,?\\s+the\\s+(?:AI\\s+)?${AI_NOUN}\\b`, 'i'), weight: 0.75, detail: 'to you, the assistant' },
  // A vocative, not a mention: "dear/hey/attention AI" anywhere; "note/message/instructions for the AI" as a heading
  // (at a line or sentence start, after a determiner, or followed by a colon or comma), not as the object of a
  // sentence that talks about the model ("the client passed the server instructions to the LLM").
  {
    re: new RegExp(
      `\\b(?:dear|hey|attention)\\s+(?:AI\\s+)?${AI_NOUN}s?\\b|(?:^|[\\n([<*#>:.!?]\\s*|\\b(?:an?|this|the|my|our)\\s+(?:(?:important|urgent|special|short|quick|private)\\s+)?)${VOCATIVE_HEAD}\\s+(?:AI\\s+)?${AI_NOUN}s?\\b|\\b${VOCATIVE_HEAD}\\s+(?:AI\\s+)?${AI_NOUN}s?\\s*[:,;\u2014\u2013-]`,
      'i',
    ),
    weight: 0.7,
    detail: 'vocative to the AI',
  },
  { re: /\b(?:AI|LLM|language model|AI assistant|AI agent)s?\s*[,:]\s*(?:please|you must|you should|you need|now|ignore|do|make sure|before)\b/i, weight: 0.65, detail: 'AI, please …' },
  { re: /\b(?:to )?(?:whoever|whatever|anyone|any (?:system|program|agent|tool)|the (?:system|program|software|agent)) (?:that )?(?:is )?(?:process(?:es|ing)?|read(?:s|ing)?|handl(?:es|ing)|pars(?:es|ing)) this (?:message|e-?mail|text|document|page|file|data)\b[^.\n]{0,20}\b(?:automatically|automated|by machine)\b/i, weight: 0.7, detail: 'to whatever processes this automatically' },
  { re: new RegExp(`(?:^|\\n)[ \\t]*(?:AI\\s+)?${AI_NOUN}\\s*,\\s*(?:I(?:'d| would) (?:really )?(?:appreciate|like|love)|(?:could|would|can|will) you|please|kindly|I need you to|make sure)\\b`, 'i'), weight: 0.7, detail: 'Assistant, please …' },
  { re: new RegExp(`\\bif you are an? (?:AI|LLM|large language model|language model|${AI_NOUN}|automated|bot)\\b`, 'i'), weight: 0.7, detail: 'if you are an AI' },
  { re: /\bbefore you (?:can )?(?:solve|complete|finish|continue|answer|respond|proceed|start|do|summari[sz]e)\b[^.\n]{0,60}\b(?:task|request|question|instructions?|query)\b/i, weight: 0.65, detail: 'before you can solve the task' },
  { re: /\bafter you do (?:that|this|so),? you (?:can|may|should) (?:solve|complete|continue|proceed|finish|return)/i, weight: 0.55, detail: 'after you do that, continue' },
  { re: /\b(?:the )?(?:task|request|question|instructions?) (?:that )?(?:I|the user|they) (?:gave|asked|assigned) you\b/i, weight: 0.5, detail: 'the task I gave you' },
  { re: new RegExp(`\\bas an? (?:AI|language model|${AI_NOUN}),? you (?:must|should|are required|need|have to)\\b`, 'i'), weight: 0.6, detail: 'as an AI, you must' },
];

const RISKY_VERB =
  '(?:send|transfer|wire|pay|forward|e-?mail|mail|invite|delete|remove|erase|wipe|visit|click|open|navigate|go to|download|install|run|execute|post|publish|share|upload|grant|change|modify|update|reset|disable|create|schedule|concatenate|export|copy|leak|reveal|print|output)';
const EXFIL_VERB = '(?:send|transfer|wire|pay|forward|e-?mail|mail|invite|post|publish|share|upload|grant|concatenate|export|leak)';
const TARGET = String.raw`(?:[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{2,63}|https?://\S+|\bwww\.\S+|\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b|\bpasswords?\b|\bcredentials?\b|\bapi[ _-]?keys?\b|\ball (?:the )?(?:files|e-?mails|messages|contacts|data|documents|channels)\b)`;

const ACTION_COMMAND: Omit<WeightedPattern, 'hint' | 'hintIds'>[] = [
  {
    re: /(?<!\b(?:request|attempt|trying|tried|asked|asks|ask) to )\b(?:print|reveal|show|output|repeat|display|leak|disclose|tell me|give me|share|send)\b[^.\n]{0,20}\b(?:your|the)\s+(?:(?:full|initial|original|hidden|secret|entire|complete)\s+)?(?:system prompt|system message|initial instructions|hidden instructions|instructions above|prompt above|developer (?:message|prompt))\b/i,
    weight: 0.75,
    detail: 'print your system prompt',
  },
  // A task label ("TODO:", "IMPORTANT!!!") directly followed by an imperative action.
  { re: new RegExp(`\\b(?:TODO|TO-DO|IMPORTANT|URGENT|ATTENTION|ACTION REQUIRED|NOTE)\\b[!:.\\s-]{1,6}(?:please\\s+)?${RISKY_VERB}\\b[^\\n]{0,120}${TARGET}`, 'i'), weight: 0.55, detail: 'label + imperative action on a target' },
  { re: new RegExp(`\\b(?:TODO|TO-DO|IMPORTANT|URGENT|ATTENTION|ACTION REQUIRED|NOTE)\\b[!:.\\s-]{1,6}(?:please\\s+)?${RISKY_VERB}\\b`, 'i'), weight: 0.4, detail: 'label + imperative action' },
  // An action aimed at the user's own data, phrased to someone other than the user ("the user's …", "fill them in without asking").
  { re: new RegExp(`(?:^|[.!:\\n][ \\t]*)(?:please\\s+|do\\s+|now\\s+|then\\s+)?${EXFIL_VERB}\\b[^.\\n]{0,120}\\b(?:the user's|of the user|the user is|user's (?:data|files|messages))`, 'i'), weight: 0.5, detail: 'action on the user\'s data' },
  { re: /\bwithout (?:asking|confirming|checking with|consulting) (?:me|the user|anyone)\b/i, weight: 0.4, detail: 'without asking' },
  // Tool poisoning: an instruction to read credential or config files and hand their contents over.
  {
    re: /\b(?:read|open|cat|load|include|send|pass|attach|upload)\b[^.\n]{0,40}(?:~\/\.ssh|\bid_(?:rsa|ed25519)\b|(?:^|[\s/'"`])\.env\b|\bmcp\.json\b|\.aws\/credentials|\/etc\/(?:passwd|shadow)\b|\.netrc\b|\.npmrc\b|\.git-credentials\b|\.kube\/config)/i,
    weight: 0.6,
    detail: 'read credential files',
  },
  { re: /\b(?:and )?then (?:delete|remove|erase) (?:it|them|him|her|the (?:email|message|file|evidence)s?)\b/i, weight: 0.35, detail: 'then delete the trace' },
];

/**
 * Hints: for each pattern above (same order), literals of which any text it matches holds at least one, compared
 * like a case-insensitive regex (see literals.ts; "\\b" marks a literal that starts a word). A text holding none
 * of a pattern's hints cannot match it, so the pattern is skipped: one pass over the text finds every hint of every
 * family (exact short cuts; test/detectors/injection-shortcuts.test.ts checks each hint against strings generated
 * from its pattern).
 */
const alt = (...xs: string[]): string[] => xs;
const cross = (as: string[], bs: string[]): string[] => as.flatMap((x) => bs.map((y) => x + y));
/** JavaScript's \s. */
const SPACES = [' ', '\t', '\n', '\v', '\f', '\r', '\u00a0', '\u1680', ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)), '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff'];
const AI_HINT = cross(['\\b'], alt('ai', 'a.i.', 'assistant', 'model', 'agent', 'llm', 'language model', 'chatbot', 'bot', 'gpt', 'copilot'));
const LABEL_HINT = cross(alt('todo', 'to-do', 'important', 'urgent', 'attention', 'action required', 'note'), ['!', ':', '.', '-', ...SPACES]);
const HINTS: Record<string, string[][]> = {
  override: [
    alt('ignore', 'disregard', 'forget', 'bypass', 'override', 'overlook', 'neglect', 'discard', 'abandon', 'drop', 'set aside', 'put aside', 'pay no attention to', 'stop following', 'throw out', 'scrap'),
    alt('ignore', 'disregard', 'forget', 'discard', 'set aside', 'pay no attention to', 'never mind', 'drop', 'abandon'),
    alt('void', 'null', 'cancel', 'revoked', 'obsolete', 'superseded', 'outdated', 'no longer'),
    alt('stop what you', 'forget', 'ignore', 'disregard'),
    alt('forget '),
    alt('instruction'),
    cross(['your '], alt('new ', 'real ', 'actual ', 'true ')),
    alt(' is now '),
    alt('you are now '),
    alt('you are no longer '),
    alt('with no ', 'with any ', 'without no ', 'without any ', 'ignores', 'has no', "doesn't follow", 'does not follow', 'never follows'),
    alt('play a game'),
    alt('pretend', 'imagine', 'act as if', 'roleplay', 'role-play'),
    alt('admin', 'accountant', 'grandmother', 'developer', 'root', 'owner'),
    alt('grandmother who used to '),
    alt('from now on'),
    cross(alt('the ', 'your '), alt('user', 'human', 'operator', 'owner')),
    alt('secret from '),
    alt('the user', 'the human'),
    alt('that you'),
    alt('the following '),
    alt('ignor'),
    alt('vergiss', 'vergessen sie', 'oublie', 'olvida', 'dimentica', 'esqueça'),
    alt('忽略', '无视', '忘记', '不要理会'),
    alt('игнорируй', 'забудь', 'не обращай внимания'),
    alt('無視', '忘れ'),
  ],
  role_marker: [
    alt('<|'),
    alt('inst]', 'sys>>'),
    alt('##'),
    cross(alt('<', '</'), alt('sys', 'instruction', 'admin', 'developer')),
    alt('system', 'admin', 'developer', 'operator', 'root'),
    cross(alt('information', 'important', 'instruction', 'instructions', 'secret', 'admin', 'note', 'urgent'), ['>']),
    alt('system', 'admin', 'developer'),
    [' override', ...cross(alt('[system', '[admin', '[developer'), [' '])],
    alt('system', 'assistant'),
    alt('role"', "role'"),
    ['_call"', '_calls"', ...cross(['"'], cross(alt('arguments', 'parameters', 'args', 'input'), ['"']))],
  ],
  addressed_to_ai: [AI_HINT, AI_HINT, AI_HINT, alt('automat', 'by machine'), AI_HINT, alt('if you are a ', 'if you are an '), alt('before you '), alt('after you do '), cross(alt('gave', 'asked', 'assigned'), [' you']), AI_HINT],
  action_command: [
    alt('system prompt', 'system message', 'initial instructions', 'hidden instructions', 'instructions above', 'prompt above', 'developer message', 'developer prompt'),
    LABEL_HINT,
    LABEL_HINT,
    alt("user's", 'of the user', 'the user is'),
    cross(['without '], cross(alt('asking', 'confirming', 'checking with', 'consulting'), [' '])),
    alt('.ssh', 'id_rsa', 'id_ed25519', '.env', 'mcp.json', '.aws/credentials', '/etc/passwd', '/etc/shadow', '.netrc', '.npmrc', '.git-credentials', '.kube/config'),
    cross(['then '], cross(alt('delete', 'remove', 'erase'), [' '])),
  ],
};

/** Every hint literal, in one automaton (built at the first scan: `policy check` and start-up never scan). */
const HINT_LITERALS = [...new Set(Object.values(HINTS).flat(2))];
let hintSet: LiteralSet | undefined;
const HINT_ID = new Map(HINT_LITERALS.map((l, i) => [l, i]));

/** A family with its patterns' hints (as ids in HINT_LITERALS, the automaton's literals). */
function withHints(name: string, patterns: Omit<WeightedPattern, 'hint' | 'hintIds'>[]): WeightedPattern[] {
  const hints = HINTS[name] ?? [];
  if (hints.length !== patterns.length) throw new Error(`injection: ${name} has ${patterns.length} patterns and ${hints.length} hints`);
  return patterns.map((p, i) => {
    const hint = hints[i] as string[];
    return { ...p, hint, hintIds: hint.map((l) => HINT_ID.get(l) as number) };
  });
}

/** The families above, by signal name. */
export const PHRASE_SIGNALS: Record<string, WeightedPattern[]> = {
  override: withHints('override', OVERRIDE),
  role_marker: withHints('role_marker', ROLE_MARKER),
  addressed_to_ai: withHints('addressed_to_ai', ADDRESSED_TO_AI),
  action_command: withHints('action_command', ACTION_COMMAND),
};

/** The hint literals a text holds (one pass for every family; pass the result to matchFamily). */
export function findHints(text: string): Uint8Array {
  const found = new Uint8Array(HINT_LITERALS.length);
  (hintSet ??= new LiteralSet(HINT_LITERALS)).find(text, found);
  return found;
}

/** True when `text` holds one of the pattern's hints (a plain search; the reference for the tests). */
export function holdsHint(p: WeightedPattern, text: string): boolean {
  return p.hint.some((l) => holdsLiteral(text, l));
}

/**
 * Runs one family over a text; returns the strongest match, if any. `hints` is findHints(text), shared by the
 * families of one text (computed here when not given).
 */
export function matchFamily(signal: string, patterns: WeightedPattern[], text: string, hints?: Uint8Array): Finding | undefined {
  const found = shortcuts.on ? (hints ?? findHints(text)) : undefined;
  let best: Finding | undefined;
  for (const p of patterns) {
    if (best && p.weight <= best.weight) continue;
    if (found && !p.hintIds.some((id) => found[id] === 1)) continue;
    if (p.re.test(text)) best = { signal, detail: p.detail, weight: p.weight };
  }
  return best;
}

