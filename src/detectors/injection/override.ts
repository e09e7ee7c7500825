import { type CompiledPattern, type PhrasePattern, alt, cross, phraseFamily } from './phrase-family.js';

/**
 * `override`: orders that displace the reader's task or rules ("ignore the previous instructions", "your new task
 * is", "you are now …", role-play personas without rules, "do not tell the user"), in several languages.
 */

const INSTRUCTION_NOUN =
  '(?:\\w{0,3}structions?|directions?|directives?|prompts?|rules?|guidelines?|commands?|context|tasks?|guidance|constraints|orders|programming)';


const PATTERNS: PhrasePattern[] = [
  {
    re: new RegExp(
      `\\b(?:ignore|disregard|forget|bypass|override|overlook|neglect|discard|abandon|drop|set aside|put aside|pay no attention to|stop following|throw out|scrap)\\b[^.\\n]{0,30}?\\b(?:previous|prior|above|earlier|preceding|former|original|initial|existing|old|all|any|your|system|whatever|the)\\b[^.\\n]{0,25}?\\b${INSTRUCTION_NOUN}\\b`,
      'i',
    ),
    weight: 0.9,
    detail: 'ignore previous instructions', hint: alt('ignore', 'disregard', 'forget', 'bypass', 'override', 'overlook', 'neglect', 'discard', 'abandon', 'drop', 'set aside', 'put aside', 'pay no attention to', 'stop following', 'throw out', 'scrap'),
  },
  {
    re: /\b(?:ignore|disregard|forget|discard|set aside|pay no attention to|never mind)\b[^.\n]{0,20}\b(?:whatever|what|everything|anything) you (?:were|have been|got) (?:asked|told|given|assigned)\b|\b(?:ignore|disregard|forget|discard|drop|abandon)\b[^.\n]{0,10}\bthe (?:task|request|question|job|assignment) you (?:were|have been) (?:given|asked|assigned)\b/i,
    weight: 0.85,
    detail: 'forget what you were asked', hint: alt('ignore', 'disregard', 'forget', 'discard', 'set aside', 'pay no attention to', 'never mind', 'drop', 'abandon'),
  },
  {
    re: new RegExp(`\\b(?:previous|prior|earlier|above|original|old|all|your|system) ${INSTRUCTION_NOUN} (?:(?:are|is|have been|were) )?(?:now )?(?:void|null|cancel+ed|revoked|obsolete|superseded|outdated|no longer (?:valid|appl(?:y|ies)|applicable|relevant|in effect|matters?))\\b`, 'i'),
    weight: 0.85,
    detail: 'previous instructions are void', hint: alt('void', 'null', 'cancel', 'revoked', 'obsolete', 'superseded', 'outdated', 'no longer'),
  },
  { re: /\bstop what you(?:'re| are) doing\b|\b(?:forget|ignore|disregard) (?:the|this) (?:email|message|document|text|page|file|data) (?:above|and|;|,)/i, weight: 0.6, detail: 'drop the current task', hint: alt('stop what you', 'forget', 'ignore', 'disregard') },
  { re: /\bforget (?:everything|all)\b[^.\n]{0,30}\b(?:above|before|previous|told|said|know|learned)\b/i, weight: 0.85, detail: 'forget everything', hint: alt('forget ') },
  { re: /\b(?:new|updated|revised|real|actual|true)\s+(?:system\s+)?instructions?\s*:/i, weight: 0.75, detail: 'new instructions:', hint: alt('instruction') },
  { re: /\byour (?:new|real|actual|true) (?:task|goal|objective|role|purpose|instructions?) (?:is|are)\b/i, weight: 0.75, detail: 'your new task is', hint: cross(['your '], alt('new ', 'real ', 'actual ', 'true ')) },
  { re: /\b(?:the |this )?(?:assistant|AI|model|agent|bot) is now (?:in \w+ mode|unrestricted|unfiltered|jailbroken|free of)\b/i, weight: 0.8, detail: 'the assistant is now …', hint: alt(' is now ') },
  {
    re: /\byou are now (?:(?:a|an|the|my)\s+(?:\w+\s+){0,2}(?:assistant|ai|model|bot|agent|persona|character|hacker|jailbroken)|in\s+\w+\s+mode|DAN|unrestricted|unfiltered|free of)\b/i,
    weight: 0.8,
    detail: 'you are now …', hint: alt('you are now '),
  },
  { re: /\byou are no longer (?:bound|restricted|an? (?:ai|assistant|language model))\b/i, weight: 0.8, detail: 'you are no longer bound', hint: alt('you are no longer ') },
  // Role-play jailbreaks: a persona defined by having no rules, or one the reader is told to become and act through.
  {
    re: /\b(?:you are|you're|act as|pretend (?:to be|you are)|play(?:ing)? (?:the role of|as)|imagine you are|become)\b[^.\n]{0,60}\b(?:with(?:out)? (?:no|any) (?:rules|restrictions|limits|filters|guidelines|safety)|(?:who|that|which) (?:ignores|has no|doesn't follow|does not follow|never follows) (?:\w+ ){0,2}(?:rules|restrictions|guidelines|policies|safety))/i,
    weight: 0.8,
    detail: 'role-play persona without rules', hint: alt('with no ', 'with any ', 'without no ', 'without any ', 'ignores', 'has no', "doesn't follow", 'does not follow', 'never follows'),
  },
  { re: /\blet'?s play a game\b[^\n]{0,40}\byou (?:are|will be|play)\b/i, weight: 0.6, detail: "let's play a game: you are …", hint: alt('play a game') },
  {
    re: /\b(?:pretend|imagine|act as if|role-?play)\b[^.\n]{0,40}\byou(?:'re| are)\b[^.\n]{0,80}[.,;]\s*(?:as (?:the |my |an? )?\w+,\s*)?(?:start now|now )?(?:\w+ly )?(?:transfer|send|wire|forward|delete|run|reveal|share|read me|email|post)\b/i,
    weight: 0.7,
    detail: 'role-play, then an action', hint: alt('pretend', 'imagine', 'act as if', 'roleplay', 'role-play'),
  },
  { re: /\bas (?:the |my |an? )?(?:admin(?:istrator)?|accountant|grandmother|developer|root|owner|sysadmin)\b,\s*(?:please\s+)?(?:transfer|send|wire|forward|delete|run|reveal|share|email|post)\b/i, weight: 0.6, detail: 'as the <persona>, act', hint: alt('admin', 'accountant', 'grandmother', 'developer', 'root', 'owner') },
  { re: /\bgrandmother who used to (?:read|tell|give)\b[^.\n]{0,60}\b(?:passwords?|keys?|card numbers?|credentials|secrets|codes)\b/i, weight: 0.8, detail: 'grandma exploit', hint: alt('grandmother who used to ') },
  { re: /\bfrom now on,? you (?:will|must|are|should|shall|have to|can only)\b/i, weight: 0.55, detail: 'from now on you …', hint: alt('from now on') },
  {
    re: /\b(?:do not|don't|never|without) (?:tell(?:ing)?|inform(?:ing)?|mention(?:ing)?|notify(?:ing)?|alert(?:ing)?|let(?:ting)?|ask(?:ing)?) (?:this to )?(?:the|your) (?:user|human|operator|owner)\b/i,
    weight: 0.8,
    detail: 'do not tell the user', hint: cross(alt('the ', 'your '), alt('user', 'human', 'operator', 'owner')),
  },
  { re: /\bkeep (?:this|it) (?:a )?secret from (?:the|your) (?:user|human)\b/i, weight: 0.8, detail: 'keep it secret from the user', hint: alt('secret from ') },
  { re: /\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|disclose|show|let)\b[^.\n]{0,60}\b(?:to )?the (?:user|human)\b/i, weight: 0.7, detail: 'hide it from the user', hint: alt('the user', 'the human') },
  { re: /\b(?:do not|don't|never) (?:mention|reveal|disclose|say) (?:that|to anyone that) you\b/i, weight: 0.6, detail: 'do not mention that you …', hint: alt('that you') },
  { re: /\b(?:strictly )?(?:adhere|stick|comply) (?:strictly )?(?:to|with) the following (?:instruction|command|directive)s?\b/i, weight: 0.6, detail: 'adhere to the following instruction', hint: alt('the following ') },
  // Cheap multilingual variants of "ignore the previous instructions".
  { re: /\bignor(?:a|e|ez|er|ar|ieren?|iere|ate|ieren Sie)\b[^.\n]{0,30}\b(?:instrucciones|instructions|instruções|istruzioni|anweisungen|anleitungen|consignes|indications|directives|órdenes|indicaciones|befehle|vorgaben|ordini|indicazioni|anfrage|demande|solicitud|richiesta)\b/i, weight: 0.85, detail: 'ignore instructions (multilingual)', hint: alt('ignor') },
  { re: /\b(?:vergiss|vergessen Sie|oublie[zr]?|olvida|dimentica|esqueça)\b[^.\n]{0,30}\b(?:alles|tout|todo|tutto|tudo|instrucciones|anweisungen|instructions|istruzioni|consignes|lo anterior|ce qui précède|das vorherige|quanto sopra)\b/i, weight: 0.8, detail: 'forget everything (multilingual)', hint: alt('vergiss', 'vergessen sie', 'oublie', 'olvida', 'dimentica', 'esqueça') },
  { re: /(?:忽略|无视|忘记|不要理会)[^。\n]{0,12}(?:指令|指示|说明|提示|上面|以上|之前|先前)/, weight: 0.85, detail: 'ignore instructions (zh)', hint: alt('忽略', '无视', '忘记', '不要理会') },
  { re: /(?:игнорируй|забудь|не обращай внимания)[^.\n]{0,30}(?:инструкци|указани|предыдущ|вышесказанн)/i, weight: 0.85, detail: 'ignore instructions (ru)', hint: alt('игнорируй', 'забудь', 'не обращай внимания') },
  { re: /(?:無視|忘れ)[^。\n]{0,12}(?:指示|命令)|(?:指示|命令)[^。\n]{0,12}(?:無視|忘れ)/, weight: 0.85, detail: 'ignore instructions (ja)', hint: alt('無視', '忘れ') },
];

export const OVERRIDE: CompiledPattern[] = phraseFamily('override', PATTERNS);
