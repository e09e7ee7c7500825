import { EventEmitter } from 'node:events';
import { createInterface } from 'node:readline';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { RequestHandlerExtra, RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  type ClientNotification,
  type ClientRequest,
  CreateMessageRequestSchema,
  ElicitationCompleteNotificationSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  PromptListChangedNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  type Progress,
  ProgressNotificationSchema,
  type Result,
  type ServerCapabilities,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ServerConfig } from '../config/schema.js';
import { DownstreamError, errorMessage } from '../core/errors.js';
import type { Logger } from '../core/log.js';
import { VERSION } from '../core/version.js';
import { emptyCatalog, fetchCatalog, withPart, type Catalog, type CatalogPart, type Listing } from './catalog.js';
import { perRequestSignalFetch } from './request-signal.js';
import { SessionTaskStore, startRequestTask } from './task-store.js';
import { ShapeDispatchClient } from './shape-dispatch.js';
import { readLinesOnce } from './stdio-lines.js';
import type { ForwardOptions, Origin } from './session.js';

/** A request a downstream server sends to its client (the proxy): sampling, elicitation, roots. */
export interface ServerToClientRequest {
  method: 'sampling/createMessage' | 'elicitation/create' | 'roots/list';
  /** The params without `_meta.progressToken` (the proxy asks upstream with its own token). */
  params: Record<string, unknown>;
  /** The server's progress token, if it asked for progress: `progress` reports to it. */
  progressToken?: string | number;
  /** Sends progress on this request back to the server (with its own token). */
  progress(p: Progress): void;
}

/**
 * Who answers what a downstream server sends to the proxy as its client: its requests (carried to the upstream
 * client whose request caused them) and its notifications (log messages, resource updates).
 */
export interface DownstreamPeer {
  request(from: Downstream, req: ServerToClientRequest, signal: AbortSignal): Promise<Result>;
  notify(from: Downstream, n: { method: 'notifications/message' | 'notifications/resources/updated' | 'notifications/elicitation/complete'; params: Record<string, unknown> }): void;
}

/**
 * What the proxy tells servers it can do as their client: it carries sampling, elicitation (form and URL) and
 * roots to the upstream client; whether that client can answer is checked when a request arrives. Sampling and
 * elicitation may come task-augmented: the proxy answers with a task of its own and carries the request as usual
 * (task-store.ts), so a server's tasks/get, tasks/result, tasks/list and tasks/cancel are answered by the proxy.
 */
const CLIENT_CAPABILITIES = {
  sampling: {},
  elicitation: { form: {}, url: {} },
  roots: { listChanged: true },
  tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
};

/** How a forwarded request ended (the `forwarded` event, for metrics). */
export type ForwardOutcome = 'ok' | 'error' | 'timeout';
export interface ForwardedRequest {
  method: string;
  outcome: ForwardOutcome;
  seconds: number;
}

/** Connection state of one downstream server. */
export type DownstreamState = 'connecting' | 'ready' | 'down' | 'closed';

const BACKOFF_MIN_MS = 500;
const BACKOFF_MAX_MS = 30_000;
/** A failed resources or prompts listing is tried again after this, doubling up to RELIST_MAX_MS (ms). */
const RELIST_MIN_MS = 1_000;
const RELIST_MAX_MS = 60_000;
/** The retry schedule as log lines and clients name it. */
const SCHEDULE = `doubling from ${BACKOFF_MIN_MS / 1000} s up to every ${BACKOFF_MAX_MS / 1000} s`;

/** Why a server is down, as the log, `tools/call` and the clients' log messages say it. */
export interface DownstreamProblem {
  /** The last connection error (e.g. `spawn foo ENOENT`), with the server's last stderr line when it wrote one. */
  reason: string;
  /** What to change: the config key, in a sentence. */
  fix: string;
  /** Milliseconds until the next attempt, when it was scheduled. */
  retryInMs: number;
}

/**
 * Supervises one downstream MCP server: connects (stdio child, Streamable HTTP or SSE), discovers its catalog,
 * reconnects with exponential back-off when it exits or stops answering, and re-initialises on HTTP 404.
 * Emits `changed` (kind: 'tools' | 'resources' | 'prompts') when its catalog changes, and 'instructions' after each
 * (re)connection.
 */
export class Downstream extends EventEmitter {
  state: DownstreamState = 'connecting';
  catalog: Catalog = emptyCatalog();
  /** Resolves after the first connection attempt finishes (successfully or not). */
  readonly firstAttempt: Promise<void>;
  private client: Client | undefined;
  /** The client whose connection is being made (its child started, its initialize not answered yet). */
  private connecting: Client | undefined;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private resolveFirst!: () => void;
  private readonly log: Logger;
  /** The sampling and elicitation tasks the server asked the proxy to run (its tasks/get, tasks/result). */
  private readonly tasks = new SessionTaskStore();
  /** Upstream requests this server is working on now, newest last (see `origins`). */
  private readonly inflight: Origin[] = [];
  /** Set by the pool: answers this server's requests to its client and takes its notifications. */
  peer: DownstreamPeer | undefined;
  /** The `instructions` of the server's last initialize result (undefined: it gave none, or not connected yet). */
  instructions: string | undefined;
  /** Why the server is down, while it is (undefined once it is ready). Emits `state` when this changes. */
  problem: DownstreamProblem | undefined;
  /** The last line the stdio child wrote to stderr (named with a failure: it usually says why). */
  private lastStderr: string | undefined;
  /** The next listing of a part (resources, prompts) whose last listing failed on this connection. */
  private readonly relists = new Map<'resources' | 'prompts', NodeJS.Timeout>();

  constructor(
    readonly key: string,
    readonly cfg: ServerConfig,
    logger: Logger,
  ) {
    super();
    this.log = logger.child({ mod: 'downstream', server: key });
    this.firstAttempt = new Promise((r) => (this.resolveFirst = r));
  }

  /** Starts the first connection; never throws (failures schedule a retry). */
  start(): void {
    void this.connect();
  }

  /** Upstream requests this server is answering right now (oldest first). */
  origins(): readonly Origin[] {
    return this.inflight;
  }

  /** The server's capabilities from its last initialize (undefined while not connected). */
  capabilities(): ServerCapabilities | undefined {
    return this.state === 'ready' ? this.client?.getServerCapabilities() : undefined;
  }

  /** Tells the server its client's roots changed (no-op while it is not connected). */
  async rootsChanged(): Promise<void> {
    if (this.state === 'ready') await this.client?.sendRootsListChanged().catch((err: unknown) => this.log.debug({ err: errorMessage(err) }, 'roots list_changed failed'));
  }

  /** pid of the stdio child, when there is one (a child still being initialised included). */
  get pid(): number | undefined {
    const t = (this.client ?? this.connecting)?.transport;
    return t instanceof StdioClientTransport ? (t.pid ?? undefined) : undefined;
  }

  private makeTransport(): Transport {
    const c = this.cfg;
    if (c.command !== undefined) {
      // StdioClientTransport merges getDefaultEnvironment() (HOME, LOGNAME, PATH, SHELL, TERM, USER) with c.env.
      const t = readLinesOnce(new StdioClientTransport({ command: c.command, args: c.args, env: c.env, ...(c.cwd !== undefined ? { cwd: c.cwd } : {}), stderr: 'pipe' }));
      const err = t.stderr;
      // A server that keeps failing to start writes the same lines at every attempt: after the first, they are kept
      // for the failure line (one per change) and logged at debug.
      const level = this.failures === 0 ? 'info' : 'debug';
      if (err) createInterface({ input: err as unknown as NodeJS.ReadableStream }).on('line', (line) => {
        if (line.trim() !== '') this.lastStderr = line.trim();
        this.log[level]({ stderr: line }, 'downstream stderr');
      });
      return t;
    }
    const url = new URL(c.url!);
    const authProvider = this.oauthProvider();
    const opts = { requestInit: { headers: c.headers }, fetch: perRequestSignalFetch(), ...(authProvider ? { authProvider } : {}) };
    if (c.transport === 'sse') return new SSEClientTransport(url, opts);
    return new StreamableHTTPClientTransport(url, opts);
  }

  private oauth: ClientCredentialsProvider | PrivateKeyJwtProvider | undefined;

  /**
   * The OAuth client_credentials provider of a remote server with `oauth` (one per server: tokens outlive
   * reconnects): HTTP Basic with the client secret, or a JWT assertion signed with the private key.
   */
  private oauthProvider(): ClientCredentialsProvider | PrivateKeyJwtProvider | undefined {
    const o = this.cfg.oauth;
    if (o === undefined) return undefined;
    // The config loader has read the secret or key (env or file) into a value.
    const value = (s: typeof o.client_secret) => (s !== undefined && 'value' in s ? s.value : '');
    const common = { clientId: o.client_id, clientName: 'quadguard', ...(o.scope !== undefined ? { scope: o.scope } : {}) };
    this.oauth ??=
      o.private_key !== undefined
        ? new PrivateKeyJwtProvider({ ...common, privateKey: privateKeyOf(value(o.private_key)), algorithm: o.algorithm ?? 'RS256' })
        : new ClientCredentialsProvider({ ...common, clientSecret: value(o.client_secret) });
    return this.oauth;
  }

  private async connect(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'connecting';
    const client = new ShapeDispatchClient({ name: 'quadguard', version: VERSION }, { capabilities: CLIENT_CAPABILITIES, taskStore: this.tasks });
    const refresh = (kind: 'tools' | 'resources' | 'prompts') => () => void this.refresh(kind);
    client.setNotificationHandler(ToolListChangedNotificationSchema, refresh('tools'));
    client.setNotificationHandler(ResourceListChangedNotificationSchema, refresh('resources'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, refresh('prompts'));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => this.peer?.notify(this, n));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => this.peer?.notify(this, n));
    client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => this.peer?.notify(this, n));
    const ask = async (req: { method: string; params?: unknown }, extra: RequestHandlerExtra<ClientRequest, ClientNotification>): Promise<never> => {
      if (!this.peer) throw new DownstreamError('proxy_internal', `no upstream client can answer ${req.method}`);
      const { _meta, task, ...params } = (req.params ?? {}) as { _meta?: Record<string, unknown>; task?: { ttl?: number } } & Record<string, unknown>;
      const { progressToken, ...meta } = _meta ?? {};
      const method = req.method as ServerToClientRequest['method'];
      if (task !== undefined && extra.taskStore) {
        // Task-augmented: a task of the proxy's own now, the request carried plainly (and checked) in the background.
        const peer = this.peer;
        const plain = { ...params, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
        return (await startRequestTask(this.tasks, extra.taskStore, task.ttl, (signal) => peer.request(this, { method, params: plain, progress: () => {} }, signal), this.log)) as never;
      }
      const token = typeof progressToken === 'string' || typeof progressToken === 'number' ? progressToken : undefined;
      // Progress is sent before the answer (over HTTP each is its own POST): a server drops progress that arrives
      // after the response to its request.
      let sent: Promise<unknown> = Promise.resolve();
      const progress: ServerToClientRequest['progress'] = (p) => {
        if (token === undefined) return;
        const note = { method: 'notifications/progress' as const, params: { ...p, progressToken: token } };
        sent = sent.then(() => extra.sendNotification(note)).catch((err: unknown) => this.log.debug({ err: errorMessage(err) }, 'progress relay to the server failed'));
      };
      const forwarded = { ...params, ...(Object.keys(meta).length > 0 ? { _meta: meta } : {}) };
      const answer = await this.peer.request(this, { method, params: forwarded, ...(token !== undefined ? { progressToken: token } : {}), progress }, extra.signal);
      await sent;
      return answer as never;
    };
    client.setRequestHandler(CreateMessageRequestSchema, ask);
    client.setRequestHandler(ElicitRequestSchema, ask);
    client.setRequestHandler(ListRootsRequestSchema, ask);
    client.onerror = (err) => this.log.debug({ err: errorMessage(err) }, 'downstream transport error');
    this.connecting = client;
    try {
      await client.connect(progressFirst(client, this.makeTransport()), { timeout: this.cfg.connect_timeout_ms });
      this.connecting = undefined;
      if ((this.state as DownstreamState) === 'closed') return void (await client.close().catch(() => {}));
      this.client = client;
      client.onclose = () => this.onClosed(client);
      this.instructions = client.getInstructions();
      const listing = await fetchCatalog(client, this.log, this.cfg.connect_timeout_ms);
      this.catalog = listing.catalog;
      this.state = 'ready';
      this.failures = 0;
      const recovered = this.problem !== undefined;
      this.problem = undefined;
      this.log.info({ tools: this.catalog.tools.length, pid: this.pid }, recovered ? 'downstream ready again' : 'downstream ready');
      if (recovered) this.emit('state');
      this.emit('changed', 'instructions');
      this.emit('changed', 'tools');
      this.emit('changed', 'resources');
      this.emit('changed', 'prompts');
      this.relistFailed(client, listing, 0);
      this.emit('ready');
    } catch (err) {
      this.connecting = undefined;
      this.client = undefined;
      client.onclose = () => {};
      await client.close().catch(() => {});
      this.scheduleRestart();
      this.failed(errorMessage(err));
    } finally {
      this.resolveFirst();
    }
  }

  private onClosed(client: Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    if (this.state === 'closed') return;
    this.scheduleRestart();
    this.failed('the connection closed (the server exited or dropped it)');
  }

  /**
   * Records why the server is down and says so once per change: a new reason is one warning (with the retry
   * schedule and the config key to fix) and a `state` event (clients get a log message); the same reason again,
   * at every retry, is a debug line.
   */
  private failed(error: string): void {
    if (this.state === 'closed') return;
    const stderr = this.lastStderr !== undefined && !error.includes(this.lastStderr) ? `; its last stderr line: ${this.lastStderr}` : '';
    this.lastStderr = undefined;
    const reason = `${error}${stderr}`;
    const retryInMs = this.retryInMs ?? 0;
    const retry = `retrying in ${(retryInMs / 1000).toFixed(1)} s, then ${SCHEDULE}`;
    if (this.problem?.reason === reason) {
      this.problem.retryInMs = retryInMs;
      this.log.debug({ err: reason, attempt: this.failures }, `downstream still down; ${retry}`);
      return;
    }
    this.problem = { reason, fix: this.fixFor(error), retryInMs };
    this.log.warn({ err: reason, fix: this.problem.fix }, `downstream down; ${retry} (logged again only when the reason changes)`);
    this.emit('state');
  }

  /** The config key to change for a connection error. */
  private fixFor(error: string): string {
    const at = `servers.${this.key}`;
    if (this.cfg.command === undefined) return `check that ${this.cfg.url ?? 'the server'} is up, or fix ${at}.url in the QuadGuard config`;
    if (/\b(ENOENT|EACCES)\b/.test(error)) return `install "${this.cfg.command}" or fix ${at}.command in the QuadGuard config (it must be an executable on PATH or a path)`;
    return `fix ${at}.command and ${at}.args in the QuadGuard config (the server exits or does not speak MCP on stdio; its stderr is in the QuadGuard log)`;
  }

  /** One sentence for a client or a refused call: the state, the reason and the fix (undefined while ready). */
  stateNote(): string | undefined {
    const p = this.problem;
    if (this.state === 'ready' || this.state === 'closed' || p === undefined) return undefined;
    return `server "${this.key}" is down: ${p.reason}. QuadGuard retries (${SCHEDULE}); its tools are missing until it starts. Fix: ${p.fix}.`;
  }

  /** The delay of the retry scheduled last. */
  private retryInMs: number | undefined;

  private scheduleRestart(): void {
    if (this.state === 'closed' || this.timer) return;
    this.state = 'down';
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_MIN_MS * 2 ** this.failures) * (0.8 + Math.random() * 0.4);
    this.retryInMs = delay;
    this.failures += 1;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, delay);
    this.timer.unref();
  }

  /** Tears the current connection down and reconnects (used after a hang or an HTTP 404). */
  async restart(reason: string): Promise<void> {
    const c = this.client;
    if (!c) return;
    this.log.warn({ reason }, 'restarting downstream');
    this.client = undefined;
    c.onclose = () => {};
    await c.close().catch(() => {});
    this.scheduleRestart();
  }

  private async refresh(kind: CatalogPart, attempt = 0): Promise<void> {
    const c = this.client;
    if (!c) return;
    try {
      const listing = await fetchCatalog(c, this.log, this.cfg.connect_timeout_ms, kind, this.catalog);
      if (this.client !== c) return;
      this.catalog = withPart(this.catalog, listing.catalog, kind);
      if (listing.failed.length === 0) {
        if (attempt > 0) this.log.info({ kind, attempts: attempt + 1 }, `downstream ${kind} listed`);
        if (kind !== 'tools') {
          clearTimeout(this.relists.get(kind));
          this.relists.delete(kind);
        }
        this.emit('changed', kind);
      }
      this.relistFailed(c, listing, attempt);
    } catch (err) {
      this.log.warn({ err: errorMessage(err), kind }, 'downstream re-list failed');
    }
  }

  /**
   * A resources or prompts listing that failed (the server busy or not ready for it yet) is tried again on this
   * connection, doubling from RELIST_MIN_MS up to every RELIST_MAX_MS until it answers: until then clients see what
   * the part held before (nothing, at the first connection), and once it answers they are told `list_changed`.
   */
  private relistFailed(client: Client, listing: Listing, attempt: number): void {
    for (const { part, error } of listing.failed) {
      const delay = Math.min(RELIST_MIN_MS * 2 ** attempt, RELIST_MAX_MS);
      const note = `downstream ${part} listing failed; listing again in ${(delay / 1000).toFixed(1)} s`;
      if (attempt === 0) this.log.warn({ err: error }, note);
      else this.log.debug({ err: error, attempt }, note);
      clearTimeout(this.relists.get(part));
      const timer = setTimeout(() => {
        this.relists.delete(part);
        if (this.client === client && this.state === 'ready') void this.refresh(part, attempt + 1);
      }, delay);
      timer.unref();
      this.relists.set(part, timer);
    }
  }

  /**
   * Sends one request downstream. Throws `DownstreamError` with code `downstream_unavailable`,
   * `downstream_timeout`, `downstream_closed`; downstream JSON-RPC errors propagate as `McpError`.
   */
  async request<S extends z.ZodType>(req: { method: string; params?: Record<string, unknown> }, schema: S, opts: ForwardOptions = {}, retried = false): Promise<z.infer<S>> {
    const c = this.client;
    if (!c || this.state !== 'ready') {
      throw new DownstreamError('downstream_unavailable', this.stateNote() ?? `server "${this.key}" is unavailable (${this.state}); it is being restarted, retry shortly.`);
    }
    const { origin, asTask, ...sdkOpts } = opts;
    const given = sdkOpts.timeout;
    const timeout = given ?? this.cfg.timeout_ms;
    // Set on the rest's own copy, not spread into a new one (a key after a spread: see call-interactions.ts).
    sdkOpts.timeout = timeout;
    if (origin) this.inflight.push(origin);
    // Metrics (src/ops/) listen for each forwarded request's outcome and time; nothing is measured without them.
    const started = this.listenerCount('forwarded') > 0 ? performance.now() : undefined;
    let outcome: ForwardOutcome = 'error';
    try {
      const out = asTask && req.method === 'tools/call'
        ? ((await this.callAsTask(c, req.params ?? {}, schema, sdkOpts)) as z.infer<S>)
        : ((await c.request(req as never, schema as never, sdkOpts)) as z.infer<S>);
      outcome = 'ok';
      return out;
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (code === -32001) outcome = 'timeout';
      if (code === -32001) {
        void this.checkAlive();
        const setting = given === undefined ? ` (the setting servers.${this.key}.timeout_ms, or wrap --timeout MS)` : '';
        throw new DownstreamError('downstream_timeout', `server "${this.key}" did not answer ${req.method} within ${timeout} ms${setting}.`, { cause: err });
      }
      if (code === -32000 || this.client !== c) {
        throw new DownstreamError('downstream_closed', `server "${this.key}" closed the connection during ${req.method} (it may have crashed); it is being restarted.`, { cause: err });
      }
      if (code === 404 && this.cfg.url !== undefined && !retried) {
        // The server forgot our session (it restarted): re-initialise with a fresh client and retry once.
        await this.reconnectNow('HTTP 404: session not found');
        return this.request(req, schema, opts, true);
      }
      throw err;
    } finally {
      if (origin) this.inflight.splice(this.inflight.indexOf(origin), 1);
      if (started !== undefined) this.emit('forwarded', { method: req.method, outcome, seconds: (performance.now() - started) / 1000 } satisfies ForwardedRequest);
    }
  }

  /**
   * A tools/call run as an MCP task on the server (for tools whose `execution.taskSupport` is `required`): the SDK
   * creates the task, polls tasks/get and fetches tasks/result; this returns that result (or throws its error).
   */
  private async callAsTask(c: Client, params: Record<string, unknown>, schema: z.ZodType, opts: RequestOptions): Promise<unknown> {
    let taskId: string | undefined;
    try {
      for await (const m of c.experimental.tasks.callToolStream(params as never, schema as never, { ...opts, task: {} })) {
        if (m.type === 'taskCreated') taskId = m.task.taskId;
        if (m.type === 'result') return m.result;
        if (m.type === 'error') throw m.error;
      }
      throw new DownstreamError('downstream_closed', `server "${this.key}" ended the task of ${String(params.name)} without a result.`);
    } finally {
      // Cancelled upstream (the client's tasks/cancel or notifications/cancelled): the server's task is cancelled too.
      if (opts.signal?.aborted && taskId !== undefined) void c.experimental.tasks.cancelTask(taskId).catch(() => {});
    }
  }

  /** Drops the current client and connects again right away (no back-off); a failure schedules the usual retry. */
  private async reconnectNow(reason: string): Promise<void> {
    const c = this.client;
    this.log.warn({ reason }, 'reconnecting downstream now');
    this.client = undefined;
    if (c) {
      c.onclose = () => {};
      await c.close().catch(() => {});
    }
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    await this.connect();
  }

  /** After a timeout: a server that does not answer ping within 2 s is considered hung and restarted. */
  private async checkAlive(): Promise<void> {
    const c = this.client;
    if (!c) return;
    try {
      await c.ping({ timeout: 2000 });
    } catch {
      if (this.client === c) await this.restart('no answer to ping after a timeout');
    }
  }

  /** Stops the server for good (stdio: closes stdin, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.state = 'closed';
    if (this.timer) clearTimeout(this.timer);
    for (const timer of this.relists.values()) clearTimeout(timer);
    this.relists.clear();
    // A server still being initialised is stopped too: its child would otherwise outlive the proxy (one that hangs
    // in initialize and ignores its closed stdin runs on after the proxy exits).
    const clients = [this.client, this.connecting].filter((c): c is Client => c !== undefined);
    this.client = undefined;
    this.connecting = undefined;
    this.resolveFirst();
    for (const c of clients) {
      c.onclose = () => {};
      await c.close().catch(() => {});
    }
    for (const a of this.tasks.running.values()) a.abort(new Error('the server was stopped'));
    this.tasks.cleanup();
  }
}

/**
 * Hands the server's progress notifications to the SDK client as they are read. The SDK runs notification
 * handlers a microtask later but a response at once, so the last progress of a call, read in the same chunk as its
 * answer, found its handler already gone and was dropped: a long call's final progress never reached the client.
 * The SDK's own (deferred) progress handler is removed, so each notification is handled once.
 */
function progressFirst(client: Client, transport: Transport): Transport {
  const sdk = client as unknown as { _onprogress(n: unknown): void };
  client.removeNotificationHandler('notifications/progress');
  transport.onmessage = (m) => {
    // Every message of the server passes here: only one named as a progress notification can be one (the schema's
    // method is that literal), so the others are not parsed against it.
    if ((m as { method?: unknown }).method === 'notifications/progress' && ProgressNotificationSchema.safeParse(m).success) sdk._onprogress(m);
  };
  return transport;
}

/** A private key as the SDK takes it: a JWK given as JSON text becomes an object, a PEM stays text. */
function privateKeyOf(text: string): string | Record<string, unknown> {
  if (!text.trimStart().startsWith('{')) return text;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return text;
  }
}
