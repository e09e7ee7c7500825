import { holdsSendTarget, mayHoldImage } from './fast-paths.js';
import type { Finding } from './finding.js';
import { type CompiledPattern, type PhrasePattern, alt, cross, matchFamily, phraseFamily, SPACES } from './phrase-family.js';
import type { HintHits } from './phrase-regions.js';
import { MAX_SENTENCE, requestSentences } from './request-cues.js';

/**
 * `action_command`: embedded orders to act (print the system prompt, a task label followed by a risky verb, an action
 * on the user's data, reading credential files), and requests that move the user's secrets or data out whatever
 * their grammar (`exfiltrationRequest` below).
 */

const RISKY_VERB =
  '(?:send|transfer|wire|pay|forward|e-?mail|mail|invite|delete|remove|erase|wipe|visit|click|open|navigate|go to|download|install|run|execute|post|publish|share|upload|grant|change|modify|update|reset|disable|create|schedule|concatenate|export|copy|leak|reveal|print|output)';
const EXFIL_VERB = '(?:send|transfer|wire|pay|forward|e-?mail|mail|invite|post|publish|share|upload|grant|concatenate|export|leak)';
const TARGET = String.raw`(?:[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{2,63}|https?://\S+|\bwww\.\S+|\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b|\bpasswords?\b|\bcredentials?\b|\bapi[ _-]?keys?\b|\ball (?:the )?(?:files|e-?mails|messages|contacts|data|documents|channels)\b)`;


/** Hint of the patterns that open with a task label. */
const LABEL_HINT = cross(alt('todo', 'to-do', 'important', 'urgent', 'attention', 'action required', 'note'), ['!', ':', '.', '-', ...SPACES]);

const PATTERNS: PhrasePattern[] = [
  {
    re: /(?<!\b(?:request|attempt|trying|tried|asked|asks|ask) to )\b(?:print|reveal|show|output|repeat|display|leak|disclose|tell me|give me|share|send)\b[^.\n]{0,20}\b(?:your|the)\s+(?:(?:full|initial|original|hidden|secret|entire|complete)\s+)?(?:system prompt|system message|initial instructions|hidden instructions|instructions above|prompt above|developer (?:message|prompt))\b/i,
    weight: 0.75,
    detail: 'print your system prompt', hint: alt('system prompt', 'system message', 'initial instructions', 'hidden instructions', 'instructions above', 'prompt above', 'developer message', 'developer prompt'),
  },
  // A task label ("TODO:", "IMPORTANT!!!") directly followed by an imperative action.
  { re: new RegExp(`\\b(?:TODO|TO-DO|IMPORTANT|URGENT|ATTENTION|ACTION REQUIRED|NOTE)\\b[!:.\\s-]{1,6}(?:please\\s+)?${RISKY_VERB}\\b[^\\n]{0,120}${TARGET}`, 'i'), weight: 0.55, detail: 'label + imperative action on a target', hint: LABEL_HINT },
  { re: new RegExp(`\\b(?:TODO|TO-DO|IMPORTANT|URGENT|ATTENTION|ACTION REQUIRED|NOTE)\\b[!:.\\s-]{1,6}(?:please\\s+)?${RISKY_VERB}\\b`, 'i'), weight: 0.4, detail: 'label + imperative action', hint: LABEL_HINT },
  // An action aimed at the user's own data, phrased to someone other than the user ("the user's …", "fill them in without asking").
  { re: new RegExp(`(?:^|[.!:\\n][ \\t]*)(?:please\\s+|do\\s+|now\\s+|then\\s+)?${EXFIL_VERB}\\b[^.\\n]{0,120}\\b(?:the user's|of the user|the user is|user's (?:data|files|messages))`, 'i'), weight: 0.5, detail: 'action on the user\'s data', hint: alt("user's", 'of the user', 'the user is') },
  { re: /\bwithout (?:asking|confirming|checking with|consulting) (?:me|the user|anyone)\b/i, weight: 0.4, detail: 'without asking', hint: cross(['without '], cross(alt('asking', 'confirming', 'checking with', 'consulting'), [' '])) },
  // Tool poisoning: an instruction to read credential or config files and hand their contents over.
  {
    re: /\b(?:read|open|cat|load|include|send|pass|attach|upload)\b[^.\n]{0,40}(?:~\/\.ssh|\bid_(?:rsa|ed25519)\b|(?:^|[\s/'"`])\.env\b|\bmcp\.json\b|\.aws\/credentials|\/etc\/(?:passwd|shadow)\b|\.netrc\b|\.npmrc\b|\.git-credentials\b|\.kube\/config)/i,
    weight: 0.6,
    detail: 'read credential files', hint: alt('.ssh', 'id_rsa', 'id_ed25519', '.env', 'mcp.json', '.aws/credentials', '/etc/passwd', '/etc/shadow', '.netrc', '.npmrc', '.git-credentials', '.kube/config'),
  },
  { re: /\b(?:and )?then (?:delete|remove|erase) (?:it|them|him|her|the (?:email|message|file|evidence)s?)\b/i, weight: 0.35, detail: 'then delete the trace', hint: cross(['then '], cross(alt('delete', 'remove', 'erase'), [' '])) },
];

export const ACTION_COMMAND: CompiledPattern[] = phraseFamily('action_command', PATTERNS);

/**
 * Requests that work against the user by moving their secrets or data out, whatever their grammar (part of the
 * `action_command` family):
 * - a request, in any politeness or voice ("please forward", "would you mind sending", "it would be great if … could
 *   be forwarded", "asks that … be sent"), to move credentials to an address or URL, in one sentence;
 * - an image (markdown or HTML) whose URL has a slot for data ("…?d={the user's email}", "…?q=INSERT_DATA",
 *   "$SECRET"): rendered by the client, the image request carries whatever the model put in the slot.
 * A report ("your new password has been sent to you@…") is no request: one of the request markers must be there.
 */
const REQUEST = /\b(?:please|pls|kindly|would you|could you|can you|will you|would you mind|(?:would|it'?d) be (?:great|grateful|nice|helpful|appreciated)|(?:we|i)(?:'d| would) (?:appreciate|like|love)|appreciate (?:it )?if|asks? (?:that|you to)|request(?:s|ed)? (?:that|you to)|needs? (?:to be|you to)|should be|must be|(?:has|have) to be|arrange for|make sure)\b/i;
export const SECRET =
  /\b(?:credentials?|passwords?|passphrases?|passcodes?|pins?|api[ _-]?keys?|access[ _-]?tokens?|auth(?:entication)?[ _-]?tokens?|bearer tokens?|secret[ _-]?keys?|secrets|private[ _-]?keys?|ssh[ _-]?keys?|login (?:details|info(?:rmation)?|data)|2fa codes?|(?:one[ -]time|verification|security) codes?|recovery (?:phrases?|codes?)|seed phrases?)\b/i;
const MOVE = /\b(?:forward(?:ed|ing|s)?|sen[dt](?:ing|s)?|shar(?:e|ed|es|ing)|e-?mail(?:ed|ing|s)?|mail(?:ed|ing)?|post(?:ed|ing)?|upload(?:ed|ing)?|transfer(?:red|ring)?|deliver(?:ed|ing)?|hand(?:ed)? over|reach|pass(?:ed)? on|cop(?:y|ied) (?:over )?to)\b/i;


/** A URL slot for data: {…}, [..], <…>, $NAME, %s, or a placeholder word. */
const SLOT = String.raw`(?:\{[^}]{1,80}\}|\[[^\]]{1,80}\]|<[^>]{1,80}>|\$[A-Z_]{3,}|%s|\b(?:INSERT|PLACEHOLDER|YOUR|USER|DATA|SECRET|CONVERSATION|HISTORY|EMAIL|PASSWORD|TOKEN)_?[A-Z_]*(?:HERE)?\b)`;
export const IMAGE_WITH_SLOT = new RegExp(String.raw`!\[[^\]\n]{0,100}\]\(\s*<?https?:\/\/[^\s)]{1,300}?${SLOT}|<img\b[^>]{0,200}\bsrc\s*=\s*["']?https?:\/\/[^\s"'>]{1,300}?${SLOT}`);

export function exfiltrationRequest(text: string): Finding | undefined {
  if (mayHoldImage(text) && IMAGE_WITH_SLOT.test(text)) return { signal: 'action_command', detail: 'image URL with a slot for data', weight: 0.75 };
  // The target first: a search for "@" and a short expression cost a fraction of the secret words' expression.
  if (!holdsSendTarget(text) || !SECRET.test(text)) return undefined;
  // Only the sentences whose cut can name a secret (request-cues.ts), in text order: the first that scores is the same.
  for (const sentence of requestSentences(text)) {
    const found = credentialsRequest(sentence);
    if (found) return found;
  }
  return undefined;
}

/** One sentence (cut to MAX_SENTENCE characters) asking to send credentials to an address or URL. */
export function credentialsRequest(sentence: string): Finding | undefined {
  const s = sentence.length > MAX_SENTENCE ? sentence.slice(0, MAX_SENTENCE) : sentence;
  if (SECRET.test(s) && MOVE.test(s) && holdsSendTarget(s) && REQUEST.test(s)) return { signal: 'action_command', detail: 'request to send credentials to a target', weight: 0.65, sentence: s };
  return undefined;
}

/** The `action_command` findings of a text: the strongest phrase pattern, then an exfiltration request. */
export function actionCommand(text: string, hints: Uint8Array, hits?: HintHits): Finding[] {
  const out: Finding[] = [];
  const phrase = matchFamily('action_command', ACTION_COMMAND, text, hints, hits);
  if (phrase) out.push(phrase);
  const request = exfiltrationRequest(text);
  if (request) out.push(request);
  return out;
}
