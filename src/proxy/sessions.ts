import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { Origin, SessionContext, SessionDirectory } from './context.js';

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
}

/**
 * The live upstream sessions, so downstream list changes, log messages and resource updates reach the right
 * clients, and a server's request can find the session it belongs to. Sessions leave when they close.
 */
export class UpstreamRegistry implements SessionDirectory {
  private readonly live = new Map<SessionContext, LiveUpstream>();
  /** Called after a session left, with the URIs it was subscribed to (so servers can be unsubscribed). */
  onLeave: ((subscriptions: Set<string>) => void) | undefined;

  /** Tracks a session until its server closes. */
  add(server: Server, ctx: SessionContext): void {
    const entry: LiveUpstream = { server, ctx, subscriptions: new Set() };
    this.live.set(ctx, entry);
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
   * Delivers a server's log message: to the session of `origin` on that request's stream when the server is
   * working for exactly one session, else to every session; each session only at or above the level it set.
   */
  log(params: { level: LoggingLevel; logger?: string; data: unknown }, origin: Origin | undefined): void {
    const target = origin ? this.live.get(origin.session) : undefined;
    if (origin && target) return this.logTo(target, params, origin);
    for (const s of this.all()) this.logTo(s, params);
  }

  /** Sends one log message to one session (on `origin`'s stream when given), if it is at or above the session's level. */
  logTo(s: LiveUpstream, params: { level: LoggingLevel; logger?: string; data: unknown }, origin?: Origin): void {
    if (s.level !== undefined && LEVELS.indexOf(params.level) < LEVELS.indexOf(s.level)) return;
    const sent = origin ? origin.extra.sendNotification({ method: 'notifications/message', params }) : s.server.sendLoggingMessage(params);
    void sent.catch(() => {});
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
