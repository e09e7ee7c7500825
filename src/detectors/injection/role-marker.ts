import { type CompiledPattern, type PhrasePattern, alt, cross, phraseFamily } from './phrase-family.js';

/**
 * `role_marker`: fake system or role markers in data (chat-template tokens, [INST], "### system", <system> tags,
 * [SYSTEM] banners, a chat message object with a system role, fake tool-call JSON).
 */

/**
 * The "### system" and banner forms are written so that no run is read again from each of its characters: the
 * spaces around `(` as one run each (`[ \t]*\(?[ \t]*` split a run of spaces every way before failing), and a
 * banner's opening only from the first character of its run (a match from inside a run fails where one from its start
 * does). 32 KB of `=` after `system` cost the scorer 1.1 s. test/detectors/role-marker-runs.test.ts keeps the former
 * expressions and compares every match.
 */
export const PATTERNS: PhrasePattern[] = [
  { re: /<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>/i, weight: 0.85, detail: 'chat-template token', hint: alt('<|') },
  { re: /\[\/?INST\]|<<\/?SYS>>/, weight: 0.8, detail: '[INST] / <<SYS>> marker', hint: alt('inst]', 'sys>>') },
  { re: /(?<!#)#{2,6}[ \t]*(?:\([ \t]*)?(?:system|admin|developer|assistant)(?:[ _](?:message|prompt|instructions?|note|override))?\s*\)?\s*:?/i, weight: 0.7, detail: '### system marker', hint: alt('##') },
  { re: /<\/?(?:system|sys|system_prompt|instructions?|admin|developer)(?:\s[^<>]{0,40})?>/i, weight: 0.6, detail: '<system> tag', hint: cross(alt('<', '</'), alt('sys', 'instruction', 'admin', 'developer')) },
  { re: /\[\s*(?:SYSTEM|ADMIN|DEVELOPER|OPERATOR|ROOT)(?:[ _-](?:NOTICE|MESSAGE|NOTE|OVERRIDE|UPDATE|ALERT|PROMPT))?\s*\]|(?:(?<!=)={2,}|(?<!\*)\*{2,}|(?<!-)-{3,}|(?<!~)~{2,})\s*(?:system|admin|developer|operator)(?: (?:message|prompt|note|notice|override))?\s*(?:={2,}|\*{2,}|-{3,}|~{2,})/i, weight: 0.65, detail: '[SYSTEM] banner', hint: alt('system', 'admin', 'developer', 'operator', 'root') },
  { re: /<\/?(?:INFORMATION|IMPORTANT|INSTRUCTIONS?|SECRET|ADMIN|NOTE|URGENT)>/, weight: 0.5, detail: 'instruction wrapper tag', hint: cross(alt('information', 'important', 'instruction', 'instructions', 'secret', 'admin', 'note', 'urgent'), ['>']) },
  { re: /(?:^|\n|<!--|\[|\()[ \t]*(?:SYSTEM|ADMIN|DEVELOPER)(?: (?:MESSAGE|PROMPT|NOTE|OVERRIDE|UPDATE))?\s*:/, weight: 0.5, detail: 'SYSTEM: at line start', hint: alt('system', 'admin', 'developer') },
  { re: /\b(?:SYSTEM|ADMIN|DEVELOPER|SECURITY) OVERRIDE\b|\[(?:system|admin|developer) (?:message|prompt|note)\]/i, weight: 0.65, detail: 'system override banner', hint: [' override', ...cross(alt('[system', '[admin', '[developer'), [' '])] },
  { re: /(?:^|\n)[ \t]*(?:System|Assistant)(?: (?:message|prompt|note))?\s*:\s*(?:you|ignore|from now|the user|new)\b/i, weight: 0.6, detail: 'System: role line', hint: alt('system', 'assistant') },
  // A chat message object smuggled into data: a system/developer role with a literal order as its content.
  {
    re: /["']role["']\s*:\s*["'](?:system|developer)["']\s*,\s*["']content["']\s*:\s*["'][^"'\n]{0,200}\b(?:reveal|send|forward|share|delete|transfer|wire|ignore|override|must|new (?:policy|instructions?|rules)|you are now|from now on|maintenance mode|append|leak|disclose)\b/i,
    weight: 0.75,
    detail: 'fake system message object', hint: alt('role"', "role'"),
  },
  {
    re: /"(?:tool_calls?|function_call)"\s*:\s*[[{]|\{\s*"(?:name|tool|function)"\s*:\s*"[\w.-]{1,64}"\s*,\s*"(?:arguments|parameters|args|input)"\s*:\s*\{/,
    weight: 0.4,
    detail: 'fake tool-call JSON', hint: ['_call"', '_calls"', ...cross(['"'], cross(alt('arguments', 'parameters', 'args', 'input'), ['"']))],
  },
];

export const ROLE_MARKER: CompiledPattern[] = phraseFamily('role_marker', PATTERNS);
