import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Origin, SessionContext, SessionDirectory } from './context.js';
import type { Downstream } from './downstream.js';

/** RFC 5424 severities in MCP's order, least severe first. */
const LEVELS: readonly string[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** One live upstream session: its `Server`, its identity, and what it asked for. */
export interface LiveUpstream {
  server: Server;
  ctx: SessionContext;
  /** Set by logging/setLevel; undefined: the client asked for nothing, every message is sent. */
  level?: string;
  /** Exposed resource URIs the session subscribed to. */
  subscriptions: Set<string>;
  /** Whether the client has sent notifications/initialized (log messages wait for it). */
  initialized: boolean;
}

/** Where a server's request or log message goes: the session (and, when known, the upstream request it was made for). */
export interface Target {
  session: LiveUpstream;
  origin?: Origin;
}

/**
 * The live upstream sessions, so downstream list changes, log messages and resource updates reach the right
 * clients, and a server's request can find the session it belongs to. Sessions leave when they close.
 */
export class UpstreamRegistry implements SessionDirectory {
  private readonly live = new Map<SessionContext, LiveUpstream>();
  /** Called after a session left, with the URIs it was subscribed to (so servers can be unsubscribed). */
  onLeave: ((subscriptions: Set<string>) => void) | undefined;
  /** Called once a session's client has sent notifications/initialized (it can be sent log messages from then). */
  onInitialized: ((session: LiveUpstream) => void) | undefined;
  /**
   * The session that owns every downstream connection, when there is one: a stdio proxy serves one client for its
   * whole life, so what its servers say outside any request is still about that client. HTTP sessions share the
   * servers: none owns them.
   */
  owner: SessionContext | undefined;

  /** Tracks a session until its server closes. */
  add(server: Server, ctx: SessionContext): void {
    const entry: LiveUpstream = { server, ctx, subscriptions: new Set(), initialized: false };
    this.live.set(ctx, entry);
    const init = server.oninitialized;
    server.oninitialized = () => {
      init?.();
      entry.initialized = true;
      this.onInitialized?.(entry);
    };
    const prev = server.onclose;
    server.onclose = () => {
      this.live.delete(ctx);
      if (entry.subscriptions.size > 0) this.onLeave?.(entry.subscriptions);
      prev?.();
    };
  }

  /** The live session with this identity, if it is still open. */
  get(ctx: SessionContext): LiveUpstream | undefined {
    return this.live.get(ctx);
  }

  /** Every live session. */
  all(): LiveUpstream[] {
    return [...this.live.values()];
  }

  /** Sends the list_changed notification of `kind` to every live session; a closing one is skipped. */
  notify(kind: 'tools' | 'resources' | 'prompts'): void {
    for (const { server: s } of this.live.values()) {
      const p = kind === 'tools' ? s.sendToolListChanged() : kind === 'resources' ? s.sendResourceListChanged() : s.sendPromptListChanged();
      void p.catch(() => {});
    }
  }

  setLogLevel(ctx: SessionContext, level: string): void {
    const s = this.live.get(ctx);
    if (s) s.level = level;
  }

  mostVerboseLevel(): string | undefined {
    const asked = this.all().flatMap((s) => (s.level === undefined ? [] : [LEVELS.indexOf(s.level)]));
    return asked.length === 0 ? undefined : LEVELS[Math.min(...asked)];
  }

  subscribe(ctx: SessionContext, exposedUri: string, on: boolean): void {
    const s = this.live.get(ctx);
    if (!s) return;
    if (on) s.subscriptions.add(exposedUri);
    else s.subscriptions.delete(exposedUri);
  }

  subscribed(exposedUri: string): boolean {
    return this.all().some((s) => s.subscriptions.has(exposedUri));
  }

  subscriptions(): Set<string> {
    return new Set(this.all().flatMap((s) => [...s.subscriptions]));
  }

  /**
   * The session a server's request or log message belongs to. The downstream wire does not say which of the proxy's
   * requests caused it, so: the session of the requests the server is working on now, when they all come from one
   * session (the newest of them, so HTTP clients get it on that request's stream). With none in flight: the owner
   * of the connection (stdio), and for a request (`fallback: 'only-live'`) also the only live session. Otherwise
   * (several sessions have requests in flight, or nobody is connected, or a log between the requests of HTTP
   * sessions) there is no safe answer: the reason, and the caller refuses rather than guess.
   */
  targetOf(d: Downstream, fallback: 'only-live' | 'owner'): Target | string {
    const origins = d.origins().filter((o) => this.get(o.session) !== undefined);
    const sessions = new Set(origins.map((o) => o.session));
    if (sessions.size === 1) {
      const origin = origins[origins.length - 1]!;
      return { session: this.get(origin.session)!, origin };
    }
    if (sessions.size > 1) return `server "${d.key}" is serving requests of ${sessions.size} sessions at once, so QuadGuard cannot tell which client it concerns`;
    const owner = this.owner ? this.get(this.owner) : undefined;
    if (owner) return { session: owner };
    const all = this.all();
    if (fallback === 'only-live' && all.length === 1) return { session: all[0]! };
    if (all.length === 0) return 'no client is connected to QuadGuard';
    return `server "${d.key}" has no request in flight and ${all.length === 1 ? 'the connected client does not own it' : `${all.length} clients are connected`}, so QuadGuard cannot tell which client it concerns`;
  }

  /**
   * Sends one log message to one session, if it is at or above the session's level: on `origin`'s stream when
   * given, and on the session's own channel when that request was already answered (its stream is gone).
   */
  logTo(s: LiveUpstream, params: { level: LoggingLevel; logger?: string; data: unknown }, origin?: Origin): void {
    if (s.level !== undefined && LEVELS.indexOf(params.level) < LEVELS.indexOf(s.level)) return;
    const direct = () => s.server.sendLoggingMessage(params).catch(() => {});
    if (!origin) return void direct();
    void origin.extra.sendNotification({ method: 'notifications/message', params }).catch(direct);
  }

  /** Sends notifications/resources/updated to every session subscribed to the exposed URI. */
  resourceUpdated(exposedUri: string, params: Record<string, unknown>): void {
    for (const s of this.all()) if (s.subscriptions.has(exposedUri)) void s.server.sendResourceUpdated({ ...params, uri: exposedUri }).catch(() => {});
  }

  /** Number of live sessions. */
  get size(): number {
    return this.live.size;
  }

  /** Closes every live session. */
  async closeAll(): Promise<void> {
    await Promise.all(this.all().map((s) => s.server.close().catch(() => {})));
  }
}
