import type { CompiledBook } from '../policy/compiled.js';

/** What the live view shows about one rule. */
export interface RuleInfo {
  text: string;
  severity?: string;
  remediation?: string;
}

/** The policy the live view explains decisions with: its identity and the text of every rule. */
export interface PolicyInfo {
  name?: string;
  version?: string;
  hash?: string;
  rules: Record<string, RuleInfo>;
}

/**
 * The rules the proxy enforces itself, outside the policy book (see src/proxy/refusals.ts): their ids appear in
 * audit rows like a book's rule ids, so the live view can explain them the same way.
 */
export const PROXY_RULES: Readonly<Record<string, RuleInfo>> = {
  'unknown-tool': { text: 'A call to a tool that no configured server offers is refused.', remediation: 'Call tools/list and use one of the listed tools.' },
  'tool-hidden': {
    text: 'A tool whose definition changed since it was pinned (a rug pull), or whose description carries injected instructions, is hidden and cannot be called until an operator approves it.',
    remediation: 'Review the changed definition under "Changed tools" and approve it if the change is expected.',
  },
  'unknown-prompt': { text: 'A request for a prompt that no configured server offers is refused.' },
  'unknown-resource': { text: 'A read of a resource whose URI names no configured server is refused.' },
  'limits.max_argument_bytes': { text: 'Arguments larger than limits.max_argument_bytes are refused before the guard and any server see them.' },
  'limits.max_argument_depth': { text: 'Arguments nested deeper than limits.max_argument_depth are refused before the guard and any server see them.' },
  'message-arguments': { text: 'guard_check_message needs string arguments sender, recipient and content.' },
  'sender-must-match-identity': { text: 'An authenticated agent may only check messages it sends itself: the claimed sender must be the agent its token proves.' },
};

/** Rule texts of a compiled book, plus the proxy's own rules; `servers.<key>.tools` ids are explained by prefix. */
export function policyInfo(book?: CompiledBook): PolicyInfo {
  const rules: Record<string, RuleInfo> = { ...PROXY_RULES };
  if (book) {
    for (const r of book.book.rules) rules[r.id] = { text: r.text, severity: r.severity, ...(r.remediation ? { remediation: r.remediation } : {}) };
    return { name: book.book.name, version: book.book.version, hash: book.hash, rules };
  }
  return { rules };
}
