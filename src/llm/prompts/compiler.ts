import { z } from 'zod';

/**
 * The policy compiler's prompt (QuadSentinel §4.5 "Policy Decomposition and Translation"), strong tier, offline.
 * The natural-language policy is written by the operator and is trusted, but it still travels as a JSON value.
 */
export const COMPILER_SYSTEM = `You translate a natural-language security policy for AI agents into a machine-checkable policy book for QuadGuard, a guarding proxy for the Model Context Protocol.

The user message is a JSON object with "policy_markdown" (the policy) and "detector_catalogue" (the deterministic detector types you may use, with their options).

Do this:
1. Decompose the policy into atomic statements. Each prohibition or obligation becomes one rule.
2. Define boolean predicates over observable state of one interaction (a tool call or its result, a resource or prompt request or its result, or an inter-agent message). A predicate is an atomic fact such as "the tool call sends data to an external destination" or "the content contains a credential". Reuse predicates across rules; keep them few and precise.
3. Write each rule's formula as the SAFETY OBLIGATION that must hold: the rule is violated when the formula is false. Example: "never publish sensitive information" becomes !(sensitive_info & publish_content). Use only predicate names and the operators ! (not), & (and), | (or), -> (implies) and parentheses.
4. Where a deterministic detector from the catalogue fits a predicate, propose it under "detectors" with its options; a predicate no detector can decide keeps an empty "detectors" list and will be decided by a model.
5. Copy into each rule's "text" the exact sentence of the policy it came from.

Field rules:
- predicate "name": snake_case; "description": one sentence a model can evaluate; "keywords": a few words that signal it; "scope": "action" | "message" | "result" | "any"; "persistence": "event" (recomputed per interaction) or "sticky" (once true, stays true for the session: use it for facts about the past such as "private data was read earlier"); optional "tools": glob patterns on "<server>__<tool>" that make the predicate must-check for those tools.
- rule "id": kebab-case; "applies_to": a non-empty list of "tool_call" | "tool_result" | "resource_request" | "resource_result" | "prompt_request" | "prompt_result" | "message"; "severity": "low" | "medium" | "high" | "critical"; "hard": true only for absolute prohibitions (never reviewed, always deny); "mode": "enforce"; optional "remediation": what the agent should do instead.

Output: only a JSON object of exactly this form, with no other keys:
{"description": "...", "predicates": [{"name": "...", "description": "...", "keywords": ["..."], "scope": "any", "persistence": "event", "detectors": [{"type": "...", "...": "..."}]}], "rules": [{"id": "...", "text": "...", "applies_to": ["tool_call"], "formula": "...", "severity": "high", "hard": false, "mode": "enforce", "remediation": "..."}]}`;

/** The compiler's answer before it is assembled into a book (the book schema validates the rest). */
export const CompilerAnswerSchema = z.object({
  description: z.string().optional(),
  predicates: z.array(z.unknown()),
  rules: z.array(z.unknown()),
});
export type CompilerAnswer = z.infer<typeof CompilerAnswerSchema>;
export const COMPILER_TAG = 'compiler/v1';

/** Detector types of the toolbox, with what they are for, shown to the compiler when the registry has no summary. */
export const DETECTOR_CATALOGUE: Record<string, string> = {
  regex: 'a regular expression over a field of the interaction (arguments, content, tool, uri…)',
  keywords: 'any of a list of words or phrases appears in a field',
  tool: 'the tool name (<server>__<tool>) matches glob patterns',
  path: 'a path argument matches glob patterns (e.g. files outside a workspace, dotfiles)',
  url_domain: 'a URL in a field points to (or outside) a list of domains',
  secrets: 'a credential, API key, private key or token appears in a field',
  pii: 'personal data (e-mail, phone number, card number, national id…) appears in a field',
  shell_risk: 'a shell command argument is destructive or dangerous (rm -rf, curl | sh, chmod 777…)',
  profile: "a comparison of the agent's established profile fields (role, clearance…) with values",
  injection: 'prompt-injection phrasing in a field (ignore previous instructions, role markers…)',
  sql_access: 'the tables and columns a SQL query touches, checked against an access list',
  semantic_category: 'the text falls in a category described by example phrases (embedding similarity)',
};
