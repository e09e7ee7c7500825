import type { Finding } from './finding.js';

/**
 * `tool_hijack`: what a poisoned tool description asks of the model that reads it (tool-poisoning attacks): to hand
 * over what it has seen (keys, passwords, tokens, files such as `~/.ssh/id_rsa` or `mcp.json`, the conversation,
 * the system prompt) through an argument, to call the tool before any other, or to keep it from the user.
 * Ordinary descriptions tell the model what to pass and when to call ("call list_tables first"); they do not ask
 * for secrets, and they say "do not pass secrets" rather than "pass any keys you have seen".
 *
 * Only for tool descriptions (see `TOOL_DESCRIPTION_SIGNALS`): a tool result asking for a password is a phishing
 * text, which the other signals judge. Linear-time patterns with bounded gaps.
 */

const HAND_OVER = '(?:with|pass|send|include|put|provide|add|attach|copy|append|give|forward|paste|insert|supply|fill|set|place|share|read|load|open|cat)';
const SENSITIVE =
  '(?:(?:api[ _-]?)?keys?|passwords?|passphrases?|credentials?|secrets?|tokens?|private[ _-]key|ssh[ _-]keys?|id_rsa|id_ed25519|\\.ssh\\b|\\.aws\\b|\\.env\\b|\\.netrc|mcp\\.json|cookies?|session ids?|environment variables|env vars|(?:the |this |whole |entire |full )?(?:conversation|chat history|message history|previous messages|system prompt))';
const SEEN = '(?:you (?:have )?(?:seen|read|received|been given|know|have access to|can find)|(?:in|from) (?:the|this|your) (?:conversation|chat|context|session|memory|environment)|so far|available to you)';
const NEGATED = /\b(?:do not|don't|never|must not|mustn't|should not|shouldn't|without|no)\b[^.\n]{0,40}$/i;

interface Pattern {
  re: RegExp;
  weight: number;
  detail: string;
  /** Skip a match preceded, in its sentence, by a negation ("do not pass secrets"). */
  negatable?: boolean;
}

const PATTERNS: Pattern[] = [
  { re: new RegExp(`\\b${HAND_OVER}\\b[^.\\n]{0,80}?\\b(?:any|all|every|each|whatever)\\b[^.\\n]{0,30}?${SENSITIVE}[^.\\n]{0,40}?${SEEN}`, 'gi'), weight: 0.95, detail: 'asks for secrets the model has seen', negatable: true },
  { re: new RegExp(`\\b${HAND_OVER}\\b[^.\\n]{0,60}?(?:~\\/|\\$HOME\\/|\\/home\\/[^\\s/]+\\/|\\/etc\\/)[^\\s]{0,40}?(?:id_rsa|id_ed25519|\\.ssh|\\.aws|credentials|\\.env|\\.netrc|mcp\\.json|shadow|passwd|config\\.json)`, 'gi'), weight: 0.9, detail: 'asks to read a key or config file into the call', negatable: true },
  { re: new RegExp(`\\b${HAND_OVER}\\b[^.\\n]{0,60}?\\b(?:the |your )?(?:contents? of|text of)\\b[^.\\n]{0,40}?${SENSITIVE}`, 'gi'), weight: 0.85, detail: 'asks for the contents of secrets', negatable: true },
  { re: new RegExp(`\\b${HAND_OVER}\\b[^.\\n]{0,50}?\\b(?:any|all|every|the user's|your)\\b[^.\\n]{0,20}?${SENSITIVE}[^.\\n]{0,60}?\\b(?:argument|parameter|field|param|notes?|memo|context|sidenote)\\b`, 'gi'), weight: 0.85, detail: 'asks to put secrets in an argument', negatable: true },
  { re: /\b(?:do not|don't|never|without)\b[^.\n]{0,20}\b(?:tell|inform|mention|notify|alert|reveal|show|disclose)\b[^.\n]{0,20}\b(?:the user|users|anyone|the human)\b/gi, weight: 0.6, detail: 'asks to hide something from the user' },
  { re: /\b(?:always |must )?(?:call|use|invoke|run) this tool (?:first|before (?:any|every|all) other)|\bbefore (?:using|calling|invoking) (?:any|every|all) other tools?\b[^.\n]{0,40}\b(?:call|use|invoke)\b[^.\n]{0,20}\bthis\b/gi, weight: 0.35, detail: 'asks to be called before any other tool' },
];

/** The `tool_hijack` finding of a tool description, or undefined. */
export function toolHijack(text: string): Finding | undefined {
  let best: Finding | undefined;
  let called = false;
  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    for (const m of text.matchAll(p.re)) {
      if (p.negatable && NEGATED.test(text.slice(Math.max(0, m.index - 60), m.index))) continue;
      if (p.weight < 0.5) called = true;
      if (!best || p.weight > best.weight) best = { signal: 'tool_hijack', detail: p.detail, weight: p.weight };
      break;
    }
  }
  // "Call this tool first" with a request for secrets is the classic poisoning shape: it adds up.
  if (best && called && best.weight >= 0.5) best = { ...best, weight: Math.min(0.98, best.weight + 0.05), detail: `${best.detail}, before any other tool` };
  return best;
}
