import type { RunQuery } from '../../core/text/runs.js';
import type { Finding } from './finding.js';
import { mayBeModal, openingBreaks, opensWithOrderVerb } from './fast-paths.js';
import { LABEL_WORDS, OPENER, PREFIX_MARKS } from './lexicon.js';
import { MODAL_WORD_GROUP } from './gate-literals.js';
import { orderUnits, type ModalWordStarts } from './order-cues.js';
import { units, type Unit } from './sentences.js';

/**
 * `directive`: the linguistic shape of an injected instruction, independent of any attack wording. A sentence of
 * the data is a *directive* when it opens with an imperative verb (after carrier syntax, a label or a vocative is
 * stripped), or with a modal aimed at the reader ("you must …", "the summary needs to …", "the user wants you to
 * …"). A directive alone is ordinary in e-mails and documents ("please reply by Friday"), so it only scores with
 * cues that point at an AI reader rather than a human one:
 *
 * - addressee: a vocative to an AI/agent, "whoever processes this", "the user wants you to", "(bot)";
 * - the user or reader in the third person ("tell the user", "the reader's …");
 * - the reader's output ("your answer", "the summary", "what you write", "from now on", "each paragraph");
 * - content insertion ("mention that", "insert a joke", "describe X as Y", "recommend …");
 * - override and stealth ("instead", "regardless", "before anything else", "quietly", "without telling");
 * - output transformation (encodings, reversed words) and language switches;
 * - concrete targets (addresses, URLs, IBANs, paths, channels), exfiltration verbs, sensitive data, tool names,
 *   risky code.
 *
 * Cue weights add up per sentence (capped); sentences where the sender speaks as "we" are damped, and a directive
 * inside structured data (table cell, CSV field, JSON/YAML value, code comment) gets a small context bonus. The
 * signal is the strongest sentence. Linear time: bounded sentence count and length, no nested quantifiers.
 */

/** Modal directives aimed at the reader or at its output. */
export const MODAL = new RegExp(
  [
    String.raw`\byou (?:must|should|need to|have to|are to|will now|shall|are required to|are instructed to)\b`,
    String.raw`\b(?:the|this|any|your) (?:assistant|ai|model|agent|bot|llm)s? (?:must|should|needs? to|has to|is to|will now|shall)\b`,
    String.raw`\b(?:the |your )?(?:summary|answer|reply|response|output|result|translation) (?:must|should|needs? to|has to|shall|is to)\b`,
    String.raw`\b(?:what(?:ever)?|anything|everything) you (?:write|produce|say|return|output|generate|send)(?: next)? (?:must|should|needs? to|has to|shall)\b`,
    String.raw`\b(?:the user|the owner|the account owner|I|we) (?:actually |really |now |also )?(?:wants?|needs?|asks?|asked|would like|has authori[sz]ed|authori[sz]es?|instructs?|requests?) you to\b`,
    String.raw`\b(?:tell|ask|instruct|remind|want|need) you to\b`,
    String.raw`\b(?:summar(?:y|ies)|recaps?|answers?|responses?|repl(?:y|ies)|outputs?|forecasts?|translations?|(?:the|any|every) \w+ you (?:give|write|produce|return|send|provide))\b[^.\n]{0,40}\b(?:must|should|needs? to|has to|have to|is to|are to)\b`,
    String.raw`\byou (?:now )?(?:only|exclusively|must only|will only|may only) (?:speak|answer|reply|respond|write|talk|use|output)\b`,
    String.raw`\byou (?:now )?(?:speak|answer|reply|respond|write|talk) (?:only|exclusively)\b`,
    String.raw`\b(?:whoever|anyone|anybody|any(?:thing|one)? (?:that|who)) (?:is )?\w+ing (?:this|these|the above)\b[^.\n]{0,40}\b(?:should|must|needs? to|has to|is to)\b`,
    String.raw`\b(?:the person|the human|whoever) you (?:are|'re) (?:helping|assisting|working for) (?:wants?|needs?|has authori[sz]ed|asked) you to\b`,
    String.raw`\b(?:whoever|anyone|anything|any system|any tool) (?:that )?(?:reads?|process(?:es)?|summari[sz]es|handles?|parses?) this\b[^.\n]{0,40}\b(?:should|must|needs? to|has to|is to)\b`,
  ].join('|'),
  'i',
);

/** The text is addressed to an AI, an agent or whoever processes it. */
const AI_ADDRESS = new RegExp(
  [
    String.raw`\b(?:dear|hey|hi|hello|attention|note (?:for|to)|message (?:for|to)|instructions? (?:for|to)|reminder (?:for|to)|action item for|to|for) (?:the |any |all |my |our )?(?:AI|A\.I\.|assistant|language model|LLM|chatbot|bot|agent|model|GPT|copilot)s?\b(?! (?:we|I) (?:trained|built|use|deployed))`,
    String.raw`^(?:hey |hi |hello |dear |ok |okay |attention,? )?(?:[\w-]+ ){0,2}(?:AI|KI|IA|assistant|assistent|asistente|assistente|ассистент|агент|助手|agent|bot|model|LLM|copilot|chatbot|GPT|Claude|Gemini)(?:[ -](?:note-?takers?|helpers?|readers?|systems?|tools?|agents?|assistants?|bots?|models?))?s?\s*(?:[,:!\-–—]|->|=>)(?=\s)`,
    String.raw`\b(?:an die|für die|à l'|al|alla|для) (?:KI|IA|assistant|asistente|assistente|ИИ|ассистента)\b`,
    String.raw`\b(?:whoever|anyone|anybody|any(?:thing|one)? (?:that|who)) (?:is )?\w+ing (?:this|these|the above)\b[^.\n]{0,40}\b(?:should|must|needs? to|has to|is to)\b`,
    String.raw`\b(?:AI|assistant|agent|bot|model|LLM)(?: systems?| tools?| agents?| assistants?)?s? (?:reading|processing|summari[sz]ing|reviewing|parsing|handling|indexing|browsing|answering)\b`,
    String.raw`\((?:AI|assistant|agent|bot|model|LLM)\)`,
    String.raw`\b(?:you, the|as an?) (?:AI|assistant|agent|bot|model|language model)\b`,
    String.raw`\b(?:any|the) (?:AI|assistant|agent|bot|model|LLM|language model)s? (?:reading|processing|summari[sz]ing|parsing|handling|that reads|that processes)\b`,
    String.raw`\b(?:this (?:comes|is) (?:directly )?from|I'm|I am|this is|it's) (?:the|your) (?:user|account owner|owner|operator|administrator|admin|developer)\b`,
    String.raw`\b(?:whoever|anyone|any system) (?:that )?(?:reads?|process(?:es)?|summari[sz]es|handles?) this\b`,
  ].join('|'),
  'i',
);

/** The AI as the subject of an obligation ("the assistant should …", "the model is now …"). */
export const AI_SUBJECT =
  /\b(?:the|this|any|every|all|your) (?:AI|assistant|agent|bot|model|LLM|language model)s?\b(?: [\w']+ing\b[^.,;\n]{0,30})? (?:must|should|needs? to|has to|is to|are to|will now|shall|is now|are now|may now|can now|has been)\b/i;

/** The user or reader in the third person (with a few other languages). */
const USER3 =
  /\b(?:the|your|this) (?:user|reader|human|end user|recipient|customer you are helping)s?(?:'s)?\b|\b(?:readers|users)\b|\bthe person you(?:'re| are) (?:helping|assisting)\b|\bl'utilisateur\b|\bal usuario\b|\bdel usuario\b|\bdell'utente\b|\ball'utente\b|\b(?:dem|den|der) (?:Benutzer|Nutzer)\b|用户|пользовател/i;

/** The reader's output (answer, summary, what it writes next, the rest of the conversation). */
const OUTPUT = new RegExp(
  [
    String.raw`\byour (?:(?:final|next|own|entire|whole|generated)\s+)?(?:answers?|responses?|repl(?:y|ies)|outputs?|summar(?:y|ies)|translation|explanation|solution|code|script)\b`,
    String.raw`\b(?:in|into|to|within|throughout|from|of|as part of|along with|at the (?:top|end|start|beginning) of) (?:the|every|each|any) (?:answers?|responses?|repl(?:y|ies)|outputs?|summar(?:y|ies)|result)\b`,
    String.raw`\b(?:what(?:ever)?|anything|everything|each (?:sentence|line|paragraph)|every (?:sentence|line|paragraph)|the (?:code|script|function|program|solution)) you (?:write|produce|say|return|output|generate|send|show|give)\b`,
    String.raw`\b(?:in|to|at the (?:top|end|start) of) what you (?:write|return|produce|say|show)\b`,
    String.raw`\bwhen(?:ever)? (?:you )?(?:summari[sz]ing|answering|responding|replying|summari[sz]e|answer|respond|reply|writing the (?:summary|answer|reply))\b`,
    String.raw`\b(?:from now on|from here on|for the rest of (?:the|this) (?:conversation|chat|session|thread)|(?:in|for) all (?:future|further) (?:answers|responses|replies))\b`,
    String.raw`\b(?:every|each) (?:paragraph|sentence|answer|response|reply|message) you\b|\bend every (?:paragraph|sentence|answer|response|reply)\b`,
    String.raw`\bthe (?:summary|answer|reply|response|output) (?:describes?|says?|mentions?|includes?|states?|calls?|ends?|starts?|contains?|is|reads?|lists?)\b`,
    String.raw`\b(?:the generated|the resulting|the final) (?:code|script|program|answer|text|summary)\b|\b(?:extend|modify|change) the (?:solution|code|script|program)\b`,
    String.raw`\bbefore (?:showing|returning|sending|displaying) it\b`,
    String.raw`\bin (?:one|two|three|four|five|six|\d+|a few|a single) (?:sentences?|words?|paragraphs?|bullet points?|lines?)\b`,
    String.raw`\b(?:in|into|to|within) (?:the |your |this |every |each |any |all )?(?:answers?|responses?|repl(?:y|ies)|outputs?|summar(?:y|ies)|recaps?|overview|digest|report you)\b`,
    String.raw`\b(?:while|when|whilst|whenever|before|after) (?:you(?:'re| are)? )?(?:summari[sz]|relay|recap|condens|paraphras|answer|respond|reply|describ|translat|rewrit|forward|present)\w*\b`,
    String.raw`\b(?:summar(?:y|ies)|recaps?|answers?|responses?|repl(?:y|ies)|outputs?|forecasts?|translations?|(?:the|any|every) \w+ you (?:give|write|produce|return|send|provide))\b[^.;\n]{0,40}\b(?:must|should|needs? to|has to|have to|is to|are to)\b`,
    String.raw`\bfrom (?:this|here|now|today) (?:\w+ )?on(?:wards?)?\b`,
    String.raw`\b(?:convert|encode|encrypt|translate|rewrite|format|render|reverse|shorten|scramble|end|begin|start|open|close|conclude|finish|sign) (?:the|your|each|every|all|any) (?:recaps?|summar(?:y|ies)|answers?|responses?|repl(?:y|ies)|outputs?|paragraphs?|sentences?|translations?)\b`,
    String.raw`\bwhatever you (?:say|write|do|answer|output|produce|return)\b|\b(?:every|each|any|all) (?:answers?|responses?|repl(?:y|ies)|outputs?|summar(?:y|ies))\b`,
    String.raw`\b(?:the|your) (?:summary|answer|reply|response|output|translation) (?:must|should|needs? to|has to|shall|is to)\b`,
    String.raw`\b(?:ab jetzt|von nun an|à partir de maintenant|désormais|de ahora en adelante|a partir de ahora|d'ora in poi|da ora in poi|отныне|с этого момента|从现在开始)`,
  ].join('|'),
  'i',
);

/** Ordering content into the output: "mention that …", "insert a joke", "describe X as Y". */
const TEXT_UNIT =
  String.raw`(?:jokes?|sentences?|lines?|poems?|stor(?:y|ies)|words?|phrases?|links?|urls?|emojis?|compliments?|haikus?|limericks?|paragraphs?|notes?|disclaimers?|slogans?|quotes?|facts?|remarks?|comments?|references?|statements?|claims?|p\.s\.|hashtags?|warnings?|ads?|advert(?:isement)?s?|promotions?|recommendations?|fun facts?)`;
const CREATIVE =
  `(?:poems?|riddles?|stor(?:y|ies)|sonnets?|haikus?|limericks?|essays?|cover letters?|songs?|raps?|jokes?|tweets?|slogans?|plots?|recipes?|bullet points|puns?|ode)`;
const CONTENT_STRONG = new RegExp(
  `^${OPENER}(?:(?:point out|slip in|throw in|weave in|tuck in|sneak in|squeeze in|work in|drop in)\\b|(?:work|weave|slip|fit|sneak|squeeze|build|blend) (?:[\\w'"-]+\\s+){1,6}into\\b|(?:write|compose|draft|outline|create|generate|produce|come up with|invent|tell|give|provide|add|include)\\s+(?:me |us |them |the user |the reader )?(?:an?|the|one|two|three|five|ten|\\d+|some|your own)?\\s*(?:[\\w-]+\\s+){0,3}${CREATIVE}\\b|(?:mention|say|state|claim|assert|insert|append|prepend|sprinkle|declare|stress|emphasi[sz]e|pretend|imply|hint|erwähne|mentionne|menciona|menziona|dile|dis|скажи)(?![\\w'-])(?! (?:your|our|us|of|and|or)\\b)|(?:add|include|put|place|end with|begin with|start with|open with|close with|conclude with|finish with|sign off with)\\s+(?:an?|the|this|one|some|two|three|\\d+|random|funny|short|witty|catchy)?\\s*(?:[\\w-]+\\s+){0,2}${TEXT_UNIT}\\b|(?:describe|portray|depict|present|refer to|call|characteri[sz]e|label)\\s+(?:[\\w'-]+\\s+){1,5}(?:only )?as\\b(?! (?:needed|required|usual|well|soon|described|shown|follows|possible))|(?:recommend|promote|advertise|endorse)\\s+(?!your\\b|our\\b|us\\b)[A-Z\\w])`,
  'i',
);
/** "tell/inform/assure … that …", "suggest that …": a claim handed to the reader to repeat. */
const THAT_CLAUSE = /^(?:[^.\n]{0,60}\b)?(?:suggest|claim|imply|assert|insinuate|pretend)\b[^.\n]{0,40}\b(?:that|dass|que|che|что)\b/i;
/** A message handed over for the user or reader ("tell the user …", "warn readers …", "let the user know …"). */
const TO_THE_USER =
  /\b(?:tell|inform|assure|reassure|warn|convince|persuade|notify|remind|advise|urge|direct|point|let)\s+(?:the |all |every |any )?(?:users?|readers?|end users?|person you(?:'re| are) (?:helping|assisting))\b/i;

/** Override and stealth: the order displaces the task or hides itself. */
const OVERRIDE_STRONG =
  /(?:^|[;,:.]\s*|\band\s+)instead\b(?! of\b)(?!\s*[.!]?$)|\bregardless\b|\bthen (?:finish|complete|do|answer|handle|get back to) (?:the|your) (?:task|request|question|job)\b|\bbefore the rest\b|\bno longer appl(?:y|ies)\b|\bwhatever the (?:question|task|request|user asks)\b|\bno matter (?:what|the)\b|\birrespective of\b|\beven (?:though|if) (?:nothing|it is not|that is not|the (?:text|data|email))\b|\bbefore (?:anything else|answering|giving (?:any|the|your)|you (?:answer|respond|reply|continue|proceed|do anything|solve|summari[sz]e))\b|\bthen (?:continue|proceed|resume|return|carry on|confirm|go back)\b|\bthe original (?:task|request|question|instructions?)\b|\bwhatever you were (?:asked|told|given)\b|\bstop what you(?:'re| are) doing\b|\bset aside\b|\bpay no attention\b|\b(?:do not|don't|never|without) (?:tell(?:ing)?|mention(?:ing)?|inform(?:ing)?|notify(?:ing)?|ask(?:ing)?|alert(?:ing)?|confirm(?:ing)?)\b|\bno need to (?:mention|tell|inform|ask|confirm)\b|\bnotify nobody\b|\bwithout (?:confirmation|permission|approval)\b|\bsenza (?:dirglielo|dirlo|avvisare)|\bsans (?:le dire|prévenir)|\bsin (?:decírselo|avisar)|\bohne (?:es )?(?:zu sagen|Bescheid)|\bне говоря|不要告诉/i;
const OVERRIDE_WEAK = /\binstead\b(?! of\b)|\b(?:quietly|secretly|silently|discreetly|immediately|right away|at once|urgent(?:ly)?|first)\b/i;

/** Changes to the form of the output: encodings, reversed or substituted letters, a switch of language. */
const TRANSFORM =
  /\balternating (?:upper|lower|capital|case)|\bupper ?and lower ?case\b|\bmixed case\b|\b(?:morse|hex|base64|base-64|binary|rot-?13|pig latin|leet ?speak|caesar|ciphers?)\b|\b(?:backwards?|in reverse(?: order)?|reversed)\b|\b(?:every|each|other) (?:other )?(?:word|letter|vowel|character|sentence)s?\b[^.\n]{0,40}\b(?:with|backwards|reverse|into|for|as)\b|\bonly (?:capital|uppercase|lowercase) letters\b|\ball caps\b/i;
const LANGUAGES =
  'english|spanish|french|german|italian|portuguese|dutch|russian|chinese|mandarin|cantonese|japanese|korean|arabic|hindi|bengali|urdu|hebrew|turkish|polish|greek|swedish|norwegian|danish|finnish|czech|hungarian|romanian|ukrainian|vietnamese|thai|indonesian|malay|swahili|persian|farsi|latin|klingon|esperanto|catalan|tagalog';
const LANGUAGE = new RegExp(
  `\\b(?:in|into|to|only|speak|exclusively) (?:${LANGUAGES})\\b(?!\\s+(?:food|cuisine|restaurant|class|classes|course|lessons?|history|literature))|\\bauf (?:Deutsch|Englisch|Französisch|Spanisch)\\b|\\ben (?:français|espagnol|anglais|inglés|francés|alemán)\\b`,
  'i',
);

/** Concrete places to send things: e-mail addresses, URLs, IBANs, long account numbers, paths, channels, handles. */
const TARGET =
  /[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{2,63}|\bhttps?:\/\/\S+|\bwww\.\S+|\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b|\b\d{10,24}\b|(?:^|\s)(?:~\/|\/home\/|\/etc\/|\/Users\/)\S+|(?:^|\s)#[a-z][\w-]{1,40}\b|(?:^|\s)@[a-z][\w.-]{1,40}\b|\b\d{1,3}(?:\.\d{1,3}){3}\b/i;
const EXFIL = /\b(?:send|forward|transfer|wire|pay|e-?mail|mail|post|publish|share|upload|export|leak|invite|grant|give|copy|sync|cc|bcc|sende|schicke|leite|überweise|envoie|envoyez|transfère|envía|transfiere|invia|inoltra|отправь|переведи|перешли)(?![\w'-])/iu;
/** The reader is asked to send *their own* things ("share your photos", "send us your feedback"): a call to action. */
const OWN_THINGS = /\b(?:send|forward|share|post|upload|email|mail|give|transfer|pay)\s+(?:us\s+|me\s+)?your\b/i;
const SENSITIVE =
  /\b(?:passwords?|passcodes?|one-time (?:code|passcode|password)|pins?|otp|2fa codes?|credentials?|api[ _-]?(?:keys?|tokens?)|tokens?|secrets?|private keys?|ssh keys?|id_rsa|social security(?: number)?|ssn|date of birth|birth ?date|maiden name|passport|bank statements?|card numbers?|cvv|home address|phone numbers?|(?:contact|customer|client|employee|user) (?:list|data|records|database)|contact list|conversation history|chat history|private (?:channel|messages?|files?)|confidential|configuration|environment variables|admin (?:rights|access)|(?:all|every) (?:the )?(?:files|e-?mails|messages|contacts|documents|invoices))\b/i;
/** Password hygiene wording ("reset your password", "never share your PIN"): the sensitive word is not being asked for. */
const HYGIENE = /\b(?:reset|change|update|rotate|protect|never share|do not share|don't share|choose|create|set)\b[^.\n]{0,20}\b(?:password|pin|passcode|credentials)\b/i;
/** A tool named by identifier ("call send_money", "the delete_file tool"). */
const TOOL = /\b(?:[Cc]all|[Uu]se|[Ii]nvoke|[Rr]un|[Tt]rigger|[Ee]xecute|with)\s+(?:the\s+)?`?[a-z]+(?:_[a-z0-9]+)+`?(?:\s*\(|\s+(?:tool|function|with|on|to|first|and)\b)|\b[a-z]+(?:_[a-z0-9]+)+\s+tool\b/;
/** Code that downloads and runs, destroys, opens shells or ships the environment out. */
const RISKY_CODE =
  /\b(?:curl|wget)\b[^\n]{0,120}\|\s*(?:ba|z)?sh\b|\brm\s+-rf\b|\breverse shell\b|\bsocket\.socket\b|\bos\.environ\b|\bdownloads? and (?:executes?|runs?)\b|\bos\.system\s*\(|\bpowershell\b[^\n]{0,40}\s-e(?:nc)?\b|\bchild_process\b|\bsubprocess\b[^\n]{0,60}\b(?:curl|wget|rm)\b|\bcrontab\b|\bcron (?:entry|job)\b[^.\n]{0,60}\b(?:download|curl|wget|http)/i;
/**
 * Any capitalised word opening a sentence and followed by an object ("Preheat the oven", "Mix 200 g"), unless it is
 * a determiner, pronoun or preposition: how-to steps, for telling a recipe from a letter (not an order on its own).
 */
const LOOSE_IMPERATIVE =
  /^(?!(?:the|a|an|this|that|these|those|it|its|we|you|i|our|your|my|their|his|her|there|here|in|on|at|for|from|with|by|of|to|and|but|so|if|when|as|all|some|no|yes|thanks|thank|dear|hi|hello|regards|best|cheers)\b)[A-Z][a-z]{2,} (?:the|a|an|your|it|them|all|in|on|into|for|with|up|out|\d)/;

/** Openings typical of how-tos and guidelines besides bare imperatives. */
const INSTRUCTION_OPENING = /^(?:(?:when|if|once|before|after|while) you\b|(?:never|always|don't|do not|avoid|try to)\b|step \d)/i;
/** The sender speaks as "we": correspondence between people. */
const WE = /\b(?:we|we'll|we're|our|us)\b/i;

/** Leading carrier syntax: comment markers, bullets, quotes, table bars, timestamps, "key:" and "name:" labels. */
const PREFIX = new RegExp(String.raw`^(?:\[[^\]\n]{0,24}\]\s*|[${PREFIX_MARKS.replace('-', '\\-')}]+\s*|\d{1,3}[.)]\s+|(?:${LABEL_WORDS})\b[^:\n]{0,40}[:!-]\s*|[\w.@-]{1,30}:\s+)`, 'i');

/** Candidate openings of a sentence: after carrier prefixes, and after a colon, semicolon, dash or comma. */
export function starts(s: string): string[] {
  return openings(s).filter((o, i) => i === 0 || !/^[A-Z]/.test(o) || /^\S+\s+[^A-Z\s]/.test(o));
}

/** All candidate openings, before filtering. */
export function openings(s: string): string[] {
  let t = s;
  for (let i = 0; i < 4; i++) {
    const m = PREFIX.exec(t);
    if (!m || m[0].length === 0) break;
    t = t.slice(m[0].length);
  }
  const out = [t];
  // After a colon, semicolon, dash or comma, and before a capitalised word run into the text without a full stop:
  // anywhere in the unit (at most MAX_LEN characters). Only the first 200 characters' first five breaks were, so a
  // long clause between an address and its order ("Assistant, considering …, forward …") hid the order.
  for (const at of openingBreaks(t, Infinity)) out.push(t.slice(at));
  return out;
}

/** Scores one sentence; returns the weight and the cue names that fired. */
export function scoreSentence(u: Unit): { weight: number; cues: string[] } | undefined {
  const s = u.text;
  const opens = starts(s);
  const { order, modal } = orderShape(s, opens);
  if (!order) return undefined;
  const cues: string[] = [];
  let w = 0.15;
  const add = (weight: number, cue: string): void => {
    w += weight;
    cues.push(cue);
  };
  const ai = AI_ADDRESS.test(s) || AI_ADDRESS.test(u.prev) || AI_ADDRESS.test(opens[0] as string) || AI_SUBJECT.test(s);
  if (ai) add(0.4, 'addressed to an AI');
  if (modal && /\byou to\b/i.test(s)) add(0.3, 'someone wants you to');
  const user = USER3.test(s);
  if (user) add(0.3, 'the user in the third person');
  if (OUTPUT.test(s)) add(0.35, 'about the reader\'s output');
  if (opens.some((o) => CONTENT_STRONG.test(o)) || THAT_CLAUSE.test(s)) add(0.35, 'content to insert');
  else if (TO_THE_USER.test(s)) add(0.35, 'message for the user');
  if (OVERRIDE_STRONG.test(s)) add(0.35, 'override or stealth');
  else if (OVERRIDE_WEAK.test(s)) add(0.1, 'urgency');
  if (TRANSFORM.test(s)) add(0.35, 'output transformation');
  if (LANGUAGE.test(s) && /\b(?:respond|reply|answers?|writ(?:e|ten|ing)|giv(?:e|en)|speak|switch|produce|only|exclusively|translate|from now on|antworte|réponds|responde|rispondi)\b/i.test(s)) add(0.3, 'language switch');
  // A target alone is how invoices and newsletters talk ("pay to IBAN …", "write to hello@…"); it adds, it does not decide.
  let targetOnly = 0;
  if (TARGET.test(s)) {
    const exfil = EXFIL.test(s) && !OWN_THINGS.test(s);
    targetOnly = exfil ? 0.25 : 0.1;
    add(targetOnly, exfil ? 'send to a target' : 'concrete target');
  }
  if (SENSITIVE.test(s) && !HYGIENE.test(s)) add(0.2, 'sensitive data');
  if (TOOL.test(s)) add(0.35, 'tool name');
  if (RISKY_CODE.test(s)) add(0.35, 'risky code');
  if (cues.length === 0) return undefined;
  if (u.structured && !u.tableValue && w - 0.15 - targetOnly > 0) add(0.1, 'inside structured data');
  // The sender speaking as "we" is correspondence, unless the text turns to an AI.
  if (!ai && WE.test(s)) w *= 0.6;
  // A programmer's note on what code does with a reply ("Encode the reply in Base64 before sending it"): a
  // processing step with its purpose, not an order about the reader's own answer.
  if (!ai && PROCESSING_STEP.test(s)) w *= 0.5;
  return { weight: Math.min(0.85, Math.round(w * 1000) / 1000), cues };
}

/**
 * Whether a sentence is shaped as an order (`order`: an imperative opening or a modal aimed at the reader) and
 * whether it is modal. An imperative needs three words in the sentence and two in its opening ("State University"
 * or "Update roadmap" in a table cell are names, not orders), or CJK text. Computed cheaply: the modal patterns only
 * where one of their words occurs, the imperative (one test per opening) only when the modal did not decide. The
 * plain form is test/detectors/injection/reference/fast-paths.ts.
 */
export function orderShape(s: string, opens: readonly string[]): { order: boolean; modal: boolean } {
  const modal = mayBeModal(s) && (MODAL.test(s) || AI_SUBJECT.test(s));
  if (modal) return { order: true, modal };
  const threeWords = /^\S+\s+\S+\s+\S/u.test(s);
  for (const o of opens) if (opensWithOrderVerb(o) && ((threeWords && /^\S+\s+\S/u.test(o)) || /[\u3000-\u9fff]/u.test(o))) return { order: true, modal };
  return { order: false, modal };
}

/** A processing step stated with its technical purpose or object (see scoreSentence). */
const PROCESSING_STEP =
  /\b(?:before|after|when|while) (?:sending|rendering|storing|returning|saving|writing|displaying|logging|caching|transmitting|serializing|parsing)\b|\bover the (?:wire|network)\b|\bfor the (?:API|client|server|database|frontend|backend)\b|\b(?:payloads?|bytes|buffers?|locale|utf-?8)\b/i;

/** The strongest directive sentence of a text, if any reaches a weight worth reporting. */
export function directive(text: string, runs?: RunQuery): Finding | undefined {
  let best: Finding | undefined;
  // The modal words from the one scan, when it answers for the text.
  const someLiteral = runs?.someLiteral;
  const modalWords: ModalWordStarts | undefined = someLiteral && ((visit) => void someLiteral(MODAL_WORD_GROUP, (at) => (visit(at), false)));
  // Only the units shaped as orders: any other scores nothing (order-cues.ts).
  for (const u of orderUnits(text, isModalLine, isOrderUnit, modalWords)) {
    const r = scoreSentence(u);
    if (r && r.weight >= 0.3 && (!best || r.weight > best.weight)) {
      best = { signal: 'directive', detail: r.cues.join(', '), weight: r.weight, sentence: u.text, aimedAtAi: r.cues.some((c) => AIMED.has(c)) };
    }
  }
  return best;
}

/** A unit shaped as an order (the only units `scoreSentence` scores). */
function isOrderUnit(u: Unit): boolean {
  return orderShape(u.text, starts(u.text)).order;
}

/** A line MODAL or AI_SUBJECT matches (what `orderShape` asks of a modal sentence). */
function isModalLine(line: string): boolean {
  return MODAL.test(line) || AI_SUBJECT.test(line);
}

/** Cues that aim an order at an AI (a how-to never does that). */
const AIMED = new Set(['addressed to an AI', 'tool name', 'override or stealth']);

/**
 * The text is itself a set of instructions (a how-to, a style guide, a tool description): most of its sentences
 * are imperatives, or it declares a tool. Directives inside such a text belong to it and weigh less.
 */
export function isInstructional(text: string, except = ''): boolean {
  // Prose sentences only: code lines and table rows say nothing about the document's voice.
  // The sentence under suspicion does not count: one injected order must not make a letter a how-to.
  const us = units(text.slice(0, 20_000)).filter((u) => !u.structured && !u.text.endsWith('?') && u.text !== except);
  if (us.length < 3) return false;
  let n = 0;
  for (const u of us) {
    const o = starts(u.text)[0] as string;
    if (opensWithOrderVerb(o) || LOOSE_IMPERATIVE.test(o) || MODAL.test(u.text) || INSTRUCTION_OPENING.test(u.text)) n++;
  }
  return n / us.length >= 0.5;
}