import type { Finding } from './phrases.js';

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
const SECRET =
  /\b(?:credentials?|passwords?|passphrases?|passcodes?|pins?|api[ _-]?keys?|access[ _-]?tokens?|auth(?:entication)?[ _-]?tokens?|bearer tokens?|secret[ _-]?keys?|secrets|private[ _-]?keys?|ssh[ _-]?keys?|login (?:details|info(?:rmation)?|data)|2fa codes?|(?:one[ -]time|verification|security) codes?|recovery (?:phrases?|codes?)|seed phrases?)\b/i;
const MOVE = /\b(?:forward(?:ed|ing|s)?|sen[dt](?:ing|s)?|shar(?:e|ed|es|ing)|e-?mail(?:ed|ing|s)?|mail(?:ed|ing)?|post(?:ed|ing)?|upload(?:ed|ing)?|transfer(?:red|ring)?|deliver(?:ed|ing)?|hand(?:ed)? over|reach|pass(?:ed)? on|cop(?:y|ied) (?:over )?to)\b/i;
const TARGET = /[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{2,63}|https?:\/\/\S+|\bwww\.\S+/i;

/** Sentences: a stop followed by space (an address's dots are not stops), or a line break. */
const SENTENCE = /(?<=[.!?])\s+|\n+/;
const MAX_SENTENCE = 600;

/** A URL slot for data: {…}, [..], <…>, $NAME, %s, or a placeholder word. */
const SLOT = String.raw`(?:\{[^}]{1,80}\}|\[[^\]]{1,80}\]|<[^>]{1,80}>|\$[A-Z_]{3,}|%s|\b(?:INSERT|PLACEHOLDER|YOUR|USER|DATA|SECRET|CONVERSATION|HISTORY|EMAIL|PASSWORD|TOKEN)_?[A-Z_]*(?:HERE)?\b)`;
const IMAGE_WITH_SLOT = new RegExp(String.raw`!\[[^\]\n]{0,100}\]\(\s*<?https?:\/\/[^\s)]{1,300}?${SLOT}|<img\b[^>]{0,200}\bsrc\s*=\s*["']?https?:\/\/[^\s"'>]{1,300}?${SLOT}`);

export function exfiltrationRequest(text: string): Finding | undefined {
  if (IMAGE_WITH_SLOT.test(text)) return { signal: 'action_command', detail: 'image URL with a slot for data', weight: 0.75 };
  if (!SECRET.test(text) || !TARGET.test(text)) return undefined;
  for (const sentence of text.split(SENTENCE)) {
    const s = sentence.length > MAX_SENTENCE ? sentence.slice(0, MAX_SENTENCE) : sentence;
    if (SECRET.test(s) && MOVE.test(s) && TARGET.test(s) && REQUEST.test(s)) return { signal: 'action_command', detail: 'request to send credentials to a target', weight: 0.65, sentence: s };
  }
  return undefined;
}
