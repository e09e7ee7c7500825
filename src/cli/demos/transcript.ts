/**
 * The demo transcript: numbered steps, who did what, and the guard's verdict (ALLOW / DENY, rules, witness,
 * threat level, rationale) in a form a person can follow. The text is also kept so it can be saved to a file;
 * the temp folder of the run is shown as `<sandbox>` so transcripts of different runs compare equal.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DECISION_META_KEY } from '../../proxy/denial.js';

/** A guard verdict as the client sees it. */
export interface Verdict {
  decision: 'allow' | 'deny';
  rules: string[];
  witness: string[];
  threatLevel: number | undefined;
  rationale: string;
  /** The first text block the client received. */
  text: string;
  /** Set when the result never reached the client as a guard answer (unknown tool, protocol error). */
  error?: string;
}

/** The first text block of a tool result. */
export function firstText(r: unknown): string {
  const c = (r as CallToolResult).content?.[0];
  return c && c.type === 'text' ? c.text : JSON.stringify(r);
}

function witnessNames(w: unknown): string[] {
  if (!Array.isArray(w)) return [];
  const names = w.flatMap((x) => Object.entries((x as { predicates?: Record<string, string> }).predicates ?? {}).map(([p, v]) => (v === 'true' ? p : `${p}=${v}`)));
  return [...new Set(names)];
}

/** Reads the guard's verdict from a guard_check_message result (a JSON body) or a tools/call result (`_meta`). */
export function verdictOf(r: CallToolResult): Verdict {
  const text = firstText(r);
  if (text.startsWith('{"decision"')) {
    const b = JSON.parse(text) as { decision: 'allow' | 'deny'; rationale: string; violated_rules: string[]; witness: unknown; threat_level: number };
    return { decision: b.decision, rules: b.violated_rules, witness: witnessNames(b.witness), threatLevel: b.threat_level, rationale: b.rationale, text };
  }
  const meta = (r._meta?.[DECISION_META_KEY] ?? undefined) as { decision?: 'allow' | 'deny'; rules?: string[]; witness?: unknown; threatLevel?: number; rationale?: string } | undefined;
  if (meta?.decision) {
    return { decision: meta.decision, rules: meta.rules ?? [], witness: witnessNames(meta.witness), threatLevel: meta.threatLevel, rationale: meta.rationale ?? '', text };
  }
  if (r.isError) return { decision: 'deny', rules: [], witness: [], threatLevel: undefined, rationale: text, text, error: text };
  return { decision: 'allow', rules: [], witness: [], threatLevel: undefined, rationale: '', text };
}

/** A transcript written to `out` line by line and kept as text. */
export class Transcript {
  private readonly lines: string[] = [];
  private step = 0;
  private readonly hide: string[] = [];

  constructor(private readonly out: NodeJS.WritableStream) {}

  /** Shows `dir` as `<sandbox>` from now on. */
  sandbox(dir: string): void {
    this.hide.push(dir);
  }

  say(line = ''): void {
    let s = line;
    for (const d of this.hide) s = s.split(d).join('<sandbox>');
    this.lines.push(s);
    this.out.write(`${s}\n`);
  }

  /** A numbered section heading. */
  heading(title: string): void {
    this.step++;
    this.say();
    this.say(`${this.step}. ${title}`);
  }

  /** Prints a verdict under the call that produced it. */
  verdict(v: Verdict): void {
    const level = v.threatLevel === undefined ? '' : `   threat level ${v.threatLevel}`;
    if (v.error !== undefined) {
      this.say(`   ✗ REFUSED  ${short(v.error.replace(/^(MCP error -?\d+: )+/, ''), 220)}`);
      return;
    }
    if (v.decision === 'allow') {
      this.say(`   ✓ ALLOW${level}`);
      const flagged = /flagged: rule `([^`]+)` \([^)]*\) ([^:"]+?):/.exec(v.rationale);
      const witness = /witness: ([^.]+)\./.exec(v.rationale);
      if (flagged) this.say(`     flagged, not enforced: ${flagged[1]} ${flagged[2]}${witness ? ` (${witness[1]})` : ''}`);
      if (!v.text.startsWith('{"decision"')) this.say(`     result: ${short(v.text, 160)}`);
      return;
    }
    this.say(`   ✗ DENY${v.rules.length ? `  rule ${v.rules.join(', ')}` : ''}${level}`);
    if (v.witness.length) this.say(`     witness: ${v.witness.join(', ')}`);
    this.say(`     why: ${short(v.rationale.split(' What to do instead:')[0] ?? v.rationale, 260)}`);
  }

  /** The whole transcript. */
  text(): string {
    return `${this.lines.join('\n')}\n`;
  }
}

/** One line, at most `n` characters. */
export function short(s: string, n: number): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}

/** Calls a tool, prints the call and the verdict, and returns the verdict (protocol errors become `error`). */
export async function callAndShow(t: Transcript, client: Client, who: string, name: string, args: Record<string, unknown>): Promise<Verdict> {
  t.say(`   [${who}] tools/call ${name} ${JSON.stringify(args)}`);
  let v: Verdict;
  try {
    v = verdictOf((await client.callTool({ name, arguments: args })) as CallToolResult);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    v = { decision: 'deny', rules: [], witness: [], threatLevel: undefined, rationale: msg, text: msg, error: msg };
  }
  t.verdict(v);
  return v;
}

/** Sends one inter-agent message through guard_check_message, prints it and the verdict. */
export async function messageAndShow(t: Transcript, client: Client, sender: string, recipient: string, content: string): Promise<Verdict> {
  t.say(`   [${sender} → ${recipient}] "${content}"`);
  const r = (await client.callTool({ name: 'guard_check_message', arguments: { sender, recipient, content } })) as CallToolResult;
  const v = verdictOf(r);
  t.verdict(v);
  return v;
}

/** A demo's exit code: 0 when the guard decided as the scenario expects, else 1 after saying what differed. */
export function demoOutcome(t: Transcript, failures: string[]): number {
  if (failures.length) t.say(`\nUNEXPECTED results: ${failures.join('; ')}`);
  return failures.length ? 1 : 0;
}
