import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Config } from '../config/schema.js';
import type { Decision, Guard, Interaction, Profile } from '../core/types.js';
import type { Logger } from '../core/log.js';
import type { DownstreamPool } from './pool.js';

/**
 * Records a decision in the audit log and sets its `auditId` (the guard pipeline's `record`). Absent when the
 * proxy runs without a policy (nothing is recorded then).
 */
export type DecisionRecorder = (interaction: Interaction, decision: Decision) => void;

/** The identity of one upstream connection, established by the proxy (token or `--agent`), never by the client. */
export interface SessionContext {
  /** Upstream session id (stdio: one per process). */
  id: string;
  agent: string;
  profile: Profile;
  /** True when the agent was proven by an HTTP bearer token. */
  authenticated: boolean;
}

/** What every upstream `Server` shares: config, the downstream pool, the one guard, the logger. */
export interface ProxyCore {
  config: Config;
  pool: DownstreamPool;
  guard: Guard;
  logger: Logger;
  /** Records the proxy's own refusals in the audit log (absent without a policy). */
  record?: DecisionRecorder;
}

/** The upstream request's `extra` fields the forwarding path uses. */
export interface ForwardExtra {
  signal: AbortSignal;
  sendNotification: (n: { method: 'notifications/progress'; params: Record<string, unknown> }) => Promise<void>;
}

/**
 * Request options for forwarding one upstream request downstream: upstream cancellation aborts the downstream
 * request (the SDK then sends notifications/cancelled), and progress is relayed with the upstream token restored.
 */
export function forwardOptions(upstreamToken: string | number | undefined, extra: ForwardExtra, log: Logger): RequestOptions {
  const opts: RequestOptions = { signal: extra.signal, resetTimeoutOnProgress: true };
  if (upstreamToken !== undefined) {
    opts.onprogress = (p) =>
      void extra
        .sendNotification({ method: 'notifications/progress', params: { ...p, progressToken: upstreamToken } })
        .catch((err: unknown) => log.debug({ err }, 'progress relay failed'));
  }
  return opts;
}

/** Request `_meta` minus the upstream progress token (the SDK sets its own when relaying progress). */
export function stripProgressToken(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!meta) return undefined;
  const { progressToken: _t, ...rest } = meta;
  return Object.keys(rest).length > 0 ? rest : undefined;
}
