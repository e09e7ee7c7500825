import type { Progress } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config/schema.js';
import type { Decision, Guard, Interaction } from '../core/types.js';
import type { Logger } from '../core/log.js';
import type { ClientRoots } from './client-roots.js';
import type { DownstreamPool } from './pool.js';
import type { ForwardExtra, ForwardOptions, SessionContext } from './session.js';
import { rowName } from '../store/audit-interaction.js';

export type { ForwardExtra, ForwardOptions, Origin, SessionContext } from './session.js';

/**
 * Records a decision in the audit log and sets its `auditId` (the guard pipeline's `record`). Absent when the
 * proxy runs without a policy (nothing is recorded then). `signal`: the request's, as its checks were given it (a
 * reload keeps a request on the guard it started with: `LiveGuard`).
 */
export type DecisionRecorder = (interaction: Interaction, decision: Decision, signal?: AbortSignal) => Promise<void>;


/** What every upstream `Server` shares: config, the downstream pool, the one guard, the logger, the live sessions. */
export interface ProxyCore {
  config: Config;
  pool: DownstreamPool;
  guard: Guard;
  logger: Logger;
  sessions: SessionDirectory;
  /** What each server was told its client's roots are (relative paths resolve against them). */
  clientRoots: ClientRoots;
  /** Records the proxy's own refusals in the audit log (absent without a policy). */
  record?: DecisionRecorder;
  /**
   * Where a client's progress on a server's request goes, by the progress token QuadGuard gave the client (unique,
   * unguessable; see server-requests.ts).
   */
  progress: Map<string, (p: Progress) => void>;
}

/** The live upstream sessions, as the forwarding path needs them (implemented by `UpstreamRegistry`). */
export interface SessionDirectory {
  /** The logging level a session asked for with logging/setLevel (undefined: none asked, everything is sent). */
  setLogLevel(session: SessionContext, level: string): void;
  /** The most verbose level any live session asked for (what each downstream server is told), if any. */
  mostVerboseLevel(): string | undefined;
  /** Records (or drops) a session's subscription to an exposed resource URI. */
  subscribe(session: SessionContext, exposedUri: string, on: boolean): void;
  /** Whether any live session is subscribed to the exposed URI. */
  subscribed(exposedUri: string): boolean;
  /** Every exposed URI some live session is subscribed to. */
  subscriptions(): Set<string>;
}


/**
 * Request options for forwarding one upstream request downstream: upstream cancellation aborts the downstream
 * request (the SDK then sends notifications/cancelled), and progress is relayed with the upstream token restored.
 */
export function forwardOptions(upstreamToken: string | number | undefined, extra: ForwardExtra, log: Logger, session?: SessionContext): ForwardOptions {
  // Keys added to the literal, not spread into it: see call-interactions.ts.
  const opts: ForwardOptions = { signal: ownCancellation(extra.signal, log, session), resetTimeoutOnProgress: true };
  if (session) opts.origin = { session, extra };
  if (upstreamToken !== undefined) {
    opts.onprogress = (p) =>
      void extra
        .sendNotification({ method: 'notifications/progress', params: { ...p, progressToken: upstreamToken } })
        .catch((err: unknown) => log.debug({ err }, 'progress relay failed'));
  }
  return opts;
}

/** The reason every downstream cancellation gives (notifications/cancelled `reason`). */
export const CANCEL_REASON = 'the client cancelled the request';

/**
 * The upstream request's signal as the downstream request sees it: aborted when it is, but with QuadGuard's own
 * reason. The SDK aborts a request with the `reason` of the client's notifications/cancelled, and would send that
 * text on to the server as its own cancellation's reason: a side channel from the client to the server that no
 * check reads. The client's reason is logged (masked and capped), never forwarded.
 */
function ownCancellation(signal: AbortSignal, log: Logger, session: SessionContext | undefined): AbortSignal {
  const own = new AbortController();
  const abort = () => {
    const reason: unknown = signal.reason;
    if (typeof reason === 'string' && reason.length > 0) log.info({ session: session?.id, reason: rowName(reason.slice(0, 200)) }, 'the client cancelled a request; its reason was not forwarded');
    own.abort(CANCEL_REASON);
  };
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  return own.signal;
}

/** Request `_meta` minus the upstream progress token (the SDK sets its own when relaying progress). */
export function stripProgressToken(meta: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!meta) return undefined;
  const { progressToken: _t, ...rest } = meta;
  return Object.keys(rest).length > 0 ? rest : undefined;
}
