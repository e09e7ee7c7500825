/**
 * What the live view's browser code receives from `/ui/api` (src/ui/api.ts): the JSON shapes of audit rows,
 * agents, approvals, pins, the policy's rule texts and the kinds table. A contract over the wire, so written here
 * rather than imported from the server's modules (which are Node code).
 */

export type Decision = 'allow' | 'deny';

export interface Witness {
  rule: string;
  predicates?: Record<string, string>;
  confidence: number;
}

export interface Row {
  id: number;
  auditId: string;
  ts: number;
  agent: string;
  session: string;
  kind: string;
  server: string | null;
  tool: string | null;
  uri: string | null;
  recipient: string | null;
  preview: string | null;
  decision: Decision;
  rules: string[];
  flagged: string[];
  witness: Witness[];
  threatLevel: number | null;
  rationale: string;
  elapsedMs: number | null;
  policyHash: string | null;
  source: string;
  flow?: unknown;
  detail?: { flow?: unknown };
}

export interface Agent {
  agent: string;
  tau: number;
  level: number;
  quarantined: boolean;
  reason?: string | null;
  updatedAt?: number | null;
}

export interface Approval {
  id: string;
  agent: string;
  session: string;
  server?: string | null;
  tool?: string | null;
  status: string;
  rules?: string[];
  rationale?: string;
  preview?: string | null;
  created: number;
  expires: number;
}

export interface Pin {
  server: string;
  tool: string;
  status: string;
  hash: string;
  pendingHash?: string | null;
  definition?: string | null;
  pendingDefinition?: string | null;
  updatedAt: number;
}

export interface RuleText {
  text: string;
  severity?: string;
  remediation?: string;
}

export interface Policy {
  name?: string;
  version?: string;
  hash?: string;
  rules: Record<string, RuleText>;
}

/** One row of the server's kinds table (src/core/kinds.ts), as the page needs it. */
export interface KindView {
  role: string;
  label: string;
  /** For a result: the request kind it answers (a result row joins that request's item). */
  answers?: string;
  /** Which field of the recorded interaction holds what was sent or returned. */
  payload: 'arguments' | 'content';
}

export interface Snapshot {
  lastId: number;
  decisions: Row[];
  agents: Agent[];
  pins: Pin[];
  approvals: Approval[];
  policy?: Policy;
  kinds?: Record<string, KindView>;
  now?: number;
}

export interface DecisionDetail {
  interaction: { arguments?: unknown; content?: unknown; sender?: string; recipient?: string } | null;
  truncated?: boolean;
}

/** `GET /ui/api/ops` (src/ops/service-status.ts): the service's state, when the view runs inside `serve --http`. */
export interface ServiceStatus {
  store: { ok: boolean; reason?: string } | null;
  servers: Array<{ server: string; state: string; required: boolean }>;
  reload: { at: number; ok: boolean; hash?: string; why?: string } | null;
  draining: boolean;
  counters: Array<{ name: string; value: number }>;
  now: number;
}
