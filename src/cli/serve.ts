import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { basename, join, resolve } from 'node:path';
import YAML from 'yaml';
import { PACKAGE_ROOT } from '../core/version.js';
import { type Command, Option } from 'commander';
import { loadConfigFile, validateConfig, type LoadedConfig } from '../config/load.js';
import { AGENT_NAME_RE, AGENT_NAME_RULE } from '../config/schema.js';
import { ConfigError } from '../core/errors.js';
import { createRootLogger, type Logger } from '../core/log.js';
import { createProxy, type GuardedProxy } from '../proxy/index.js';
import type { GuardStore } from '../store/engine.js';
import { isPostgresUrl } from '../store/location.js';
import { liveViewForProxy } from '../ui/proxy-hook.js';
import { findConfigFile, resolveStoreLocation, type StoreSource } from '../store/store-path.js';
import { VERSION } from '../core/version.js';
import type { Config } from '../config/schema.js';
import { guardOptionsFromConfig } from '../config/guard.js';
import type { Guard } from '../core/types.js';
import { buildGuard, type BuiltGuard } from '../guard/build.js';
import { GUARD_STAGES } from '../guard/stages/index.js';
import type { ForwardedRequest } from '../proxy/downstream.js';
import type { FrontEndHooks, HttpUpstream } from '../proxy/http-upstream.js';
import { createAuth, opsAccess, storeGauges, type ServiceAuth } from '../ops/auth.js';
import { createDrain } from '../ops/drain.js';
import { healthRoutes, watchStore } from '../ops/health.js';
import { LiveGuard, type GuardGeneration } from '../ops/live-guard.js';
import { createServiceMetrics, meteredGuard, type ServiceMetrics } from '../ops/metrics.js';
import { createReload, runsQuadguard, writePidFile } from '../ops/reload.js';
import { serviceStatus } from '../ops/service-status.js';
import { startTracing, type Tracing } from '../ops/tracing.js';
import { createInstructionsScreen, createListingScreen, createToolScreen, type ListingScreen } from '../guard/tool-screen.js';
import type { CompiledBook } from '../policy/compiled.js';
import type { InstructionsHook, ToolsListedHook } from '../proxy/pool.js';
import type { DecisionRecorder } from '../proxy/context.js';
import type { A2AGateway, CardScreen } from '../a2a/index.js';
import type { Application } from 'express';

/** In serve mode stdout is the protocol: everything console prints goes to stderr instead. */
export function redirectConsoleToStderr(): void {
  const toErr = (...args: unknown[]) => process.stderr.write(`${args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ')}\n`);
  console.log = toErr;
  console.info = toErr;
  console.debug = toErr;
}

/** What the proxy gets from the guard side of a config. */
export interface ProxyGuard {
  /** The four-part pipeline (absent when the config names no policy: only the tool lists decide). */
  guard?: Guard;
  /** Tool pinning and description screening, run on every downstream listing. */
  onToolsListed?: ToolsListedHook;
  /** The same screening for each server's `instructions`. */
  onInstructions?: InstructionsHook;
  /** The same screening for prompts, resources, resource templates and completion values. */
  onListed?: ListingScreen;
  /** The compiled policy book (the live view shows its rule texts). */
  book?: CompiledBook;
  /** Records the proxy's own refusals in the pipeline's audit chain. */
  record?: DecisionRecorder;
  /** The guard's store (the live view reads and acts on the same one, SQLite or PostgreSQL). */
  store?: GuardStore;
  /** The swappable guard (reload): a request keeps the generation it started with. */
  live?: LiveGuard<BuiltGuard>;
  /**
   * Builds the guard of a re-read config on the same store (its book verified as at start-up) and swaps it in for
   * new requests; throws, keeping the running guard, when the book fails to load or verify. Returns the book hash.
   */
  reload?(fresh: Config): Promise<string>;
  close(): void | Promise<void>;
}

/** What the service layer adds to every decision: counts and times (`/metrics`) and spans (OTLP). */
export interface GuardObservers {
  metrics?: ServiceMetrics | undefined;
  tracing?: Tracing | undefined;
}

/**
 * The guard side of a config for the proxy: the pipeline (`buildGuard`), tool pinning and description screening
 * on every downstream listing, and the recorder of the proxy's own refusals. Without a policy only the per-server
 * tool lists decide. Any error here stops start-up: a proxy that was asked to enforce a policy never runs without it.
 */
export async function proxyGuardFor(config: Config, logger: Logger, observers: GuardObservers = {}): Promise<ProxyGuard> {
  if (config.policy === undefined) {
    logger.warn('no policy configured: only the per-server tool allow/deny lists are enforced');
    return { close() {} };
  }
  const { metrics, tracing } = observers;
  const stages = tracing ? { stages: tracing.stages(GUARD_STAGES) } : {};
  const built = await buildGuard({ ...(await guardOptionsFromConfig(config, logger)), ...stages });
  const generation = (b: BuiltGuard): GuardGeneration<BuiltGuard> => {
    let guard: Guard = b.pipeline;
    if (metrics) guard = meteredGuard(guard, metrics);
    if (tracing) guard = tracing.guard(guard);
    const record: DecisionRecorder = metrics
      ? (i, d) => {
          metrics.decision(i.kind, d);
          return b.pipeline.record(i, d);
        }
      : (i, d) => b.pipeline.record(i, d);
    return { guard, record, policyHash: b.book.hash, extra: b };
  };
  const live = new LiveGuard(generation(built));
  const screen = createToolScreen(built.store, logger);
  return {
    guard: live.guard,
    live,
    book: built.book,
    // Every listing also tells the data-flow stage the tools' MCP annotations (capability labels by default).
    onToolsListed: (server, tools) => {
      live.generation.extra.capabilities.recordTools(server, tools);
      return screen(server, tools);
    },
    onInstructions: createInstructionsScreen(built.store, logger),
    onListed: createListingScreen(built.store, logger),
    record: live.record,
    store: built.store,
    async reload(fresh) {
      if (fresh.policy === undefined) throw new ConfigError('config_invalid', 'the re-read config names no policy; a running guard is never dropped by a reload (restart to run without one)');
      const next = await buildGuard({ ...(await guardOptionsFromConfig({ ...fresh, store: config.store }, logger)), store: built.store, ...stages });
      live.swap(generation(next));
      return next.book.hash;
    },
    close: built.close,
  };
}

/**
 * Fails before any server starts when the HTTP port is taken, naming the port and the flag that picks another
 * (port 0, any free port, is never taken). The listener itself is opened later; a port taken in between still
 * fails there.
 */
export async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') reject(new ConfigError('config_invalid', `port ${port} on ${host} is already in use (another quadguard serve?); stop that process, or pick another port: quadguard serve --http ${port === 65535 ? 8787 : port + 1}`));
      else if (err.code === 'EACCES') reject(new ConfigError('config_invalid', `port ${port} on ${host} needs privileges this user lacks; pick a port above 1023: quadguard serve --http 8787`));
      else reject(new ConfigError('config_invalid', `cannot listen on ${host}:${port}: ${err.message}`));
    });
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/** Starts the proxy for a loaded config, on stdio or HTTP, and stops it (and every child) on signals. */
export async function runProxy(loaded: LoadedConfig, opts: { agent: string; http?: number; host?: string; ui?: boolean; storeSource?: StoreSource; pidFile?: string }, logger: Logger): Promise<GuardedProxy> {
  // One line that says where everything is, so `audit`/`ui` can be pointed at the same store (see `quadguard status`).
  logger.info({ version: VERSION, config: loaded.file ?? null, store: loaded.config.store, storeFrom: opts.storeSource ?? 'config', policy: loaded.config.policy ?? null }, 'quadguard starting');
  if (opts.http === undefined) checkStdioAgent(opts.agent, Object.keys(loaded.config.agents));
  else await checkPortFree(opts.http, opts.host ?? loaded.config.http.host);
  // Metrics are served on the HTTP front end (unless `http.metrics: false`); traces only when the OTLP variables ask.
  const metrics = opts.http !== undefined && loaded.config.http.metrics ? createServiceMetrics() : undefined;
  const tracing = await startTracing(logger, VERSION);
  const configured = await proxyGuardFor(loaded.config, logger, { metrics, tracing });
  let auth: ServiceAuth | undefined;
  try {
    // Before any server starts: a bad JWKS file stops start-up with nothing left running.
    auth = opts.http !== undefined ? createAuth(loaded, configured.store, metrics, logger) : undefined;
  } catch (err) {
    await configured.close();
    throw err;
  }
  const proxy = createProxy({
    config: loaded,
    logger,
    ...(configured.guard ? { guard: configured.guard } : {}),
    ...(configured.onToolsListed ? { onToolsListed: configured.onToolsListed } : {}),
    ...(configured.onInstructions ? { onInstructions: configured.onInstructions } : {}),
    ...(configured.onListed ? { onListed: configured.onListed } : {}),
    // Replicas on one PostgreSQL store: a tool approved on another replica is shown here within a second.
    ...(isPostgresUrl(loaded.config.store) ? { toolRecheckMs: 1_000 } : {}),
    ...(configured.record ? { record: configured.record } : {}),
  });
  const storeWatch = configured.store ? watchStore(configured.store, metrics) : undefined;
  const stop = proxy.close.bind(proxy);
  (proxy as { close: () => Promise<void> }).close = () =>
    stop()
      .finally(() => configured.close())
      .finally(() => {
        storeWatch?.stop();
        return tracing?.shutdown();
      });
  if (metrics || tracing) {
    for (const [key, d] of proxy.pool.servers) {
      d.on('forwarded', (f: ForwardedRequest) => {
        metrics?.forwarded(key, f.method, f.outcome, f.seconds);
        tracing?.forwarded(key, f.method, f.outcome, f.seconds);
      });
    }
  }
  // Names that stay as they are (namespace: false) may collide: refuse to start rather than hide one silently.
  await proxy.pool.ready();
  const collisions = proxy.pool.nameCollisions();
  if (collisions.length > 0) {
    await proxy.close();
    const lines = collisions.map((c) => `  ${c.kind} "${c.name}" is exposed by both "${c.servers[0]}" and "${c.servers[1]}"`);
    throw new ConfigError('config_invalid', `two servers expose the same name:\n${lines.join('\n')}\nSet namespace: true on one of them (names become <server>__<name>, URIs <server>+<uri>), or hide the tool with tools.deny.`);
  }
  const reload = createReload(loaded, configured, proxy.pool, logger, metrics, opts.http === undefined ? { tokens: false } : {}, auth);
  process.on('SIGHUP', () => void reload());
  if (opts.pidFile) {
    try {
      writePidFile(opts.pidFile);
    } catch (err) {
      await proxy.close();
      throw new ConfigError('config_invalid', `--pid-file ${opts.pidFile}: cannot write it (${(err as Error).message}); give a file in a folder that exists and this user may write`, { cause: err });
    }
  }
  const exit = (code: number) => () => void proxy.close().finally(() => process.exit(code));
  process.once('SIGINT', exit(0));
  if (opts.http !== undefined) {
    // SIGTERM drains: new requests get 503 + Retry-After, those in flight finish (at most http.drain_ms), then the
    // audit head is written as the store closes, every server is stopped, and the process exits 0.
    const drain = createDrain();
    process.once('SIGTERM', () => {
      logger.info({ inflight: drain.inflight(), drainMs: loaded.config.http.drain_ms }, 'SIGTERM: draining (new requests get 503)');
      void drain
        .drain(loaded.config.http.drain_ms)
        .then((finished) => logger.info({ finished, left: drain.inflight() }, finished ? 'drained: every request finished' : 'drain time is up: closing with requests in flight'))
        .then(() => proxy.close())
        .catch((err: unknown) => logger.error({ err }, 'closing after the drain failed'))
        .finally(() => process.exit(0));
    });
    // The live view (issue #7) under /ui on the same listener, unless --no-ui; without a policy nothing is recorded.
    // On a PostgreSQL store the view reads the shared chain: it shows the decisions of every replica.
    const servers = () => [...proxy.pool.servers].map(([server, d]) => ({ server, state: d.state, required: loaded.config.servers[server]?.required ?? false }));
    const ops = serviceStatus({ ...(storeWatch ? { store: storeWatch.check } : {}), servers, reload: reload.last, draining: () => drain.draining, ...(metrics ? { metrics } : {}) });
    const ui = opts.ui === false || loaded.config.policy === undefined ? undefined : liveViewForProxy(loaded, logger, process.env, configured.book, configured.store, ops);
    if (ui) (proxy as { close: () => Promise<void> }).close = ((c) => () => c().finally(() => ui.close()))(proxy.close);
    // The A2A proxy (docs/a2a.md) under /a2a on the same listener, guarded by the same guard, when agents are configured.
    const a2a = Object.keys(loaded.config.a2a.agents).length > 0 ? await a2aGatewayFor(loaded, proxy.guard, configured, logger) : undefined;
    let listener: HttpUpstream | undefined;
    const health = healthRoutes({
      ...(storeWatch ? { store: storeWatch.check } : {}),
      servers,
      draining: () => drain.draining,
      ...(metrics ? { metrics } : {}),
      allowed: opsAccess(loaded.config.http.ops_access, auth!.handler),
    });
    metrics?.observe({
      sessions: () => listener?.sessions() ?? 0,
      servers: () => [...proxy.pool.servers].map(([server, d]) => ({ server, state: d.state })),
      ...(configured.store ? storeGauges(configured.store) : {}),
    });
    try {
      listener = await proxy.serveHttp({
        port: opts.http,
        ...(opts.host !== undefined ? { host: opts.host } : {}),
        extraRoutes: (app: Application, hooks: FrontEndHooks) => {
          health(app);
          ui?.extraRoutes(app);
          a2a?.mount(app, hooks);
        },
        gate: drain.gate,
        auth: { handler: auth!.handler, configured: auth!.configured() },
        ...(tracing ? { around: tracing.receive } : {}),
      });
      ui?.announce(listener);
    } catch (err) {
      await proxy.close();
      throw err;
    }
  } else {
    if (Object.keys(loaded.config.a2a.agents).length > 0) logger.warn({ agents: Object.keys(loaded.config.a2a.agents) }, 'a2a agents are served only over HTTP (serve --http); not served on stdio');
    process.once('SIGTERM', exit(0));
    if (!loaded.config.agents[opts.agent]) logger.warn({ agent: opts.agent }, 'agent not in config: empty profile');
    // stdin ended (the client quit): the guard's store is closed too, so the signed audit head is written.
    await proxy.serveStdio(opts.agent, () => void Promise.resolve(configured.close()).finally(() => process.exit(0)));
  }
  return proxy;
}

/** The A2A proxy for a config, guarded by the proxy's guard; its cards screened as tool descriptions are. */
async function a2aGatewayFor(loaded: LoadedConfig, guard: Guard, configured: ProxyGuard, logger: Logger): Promise<A2AGateway> {
  const { answerServer, createA2AGateway } = await import('../a2a/index.js');
  const { onListed, onInstructions } = configured;
  const screen: CardScreen | undefined = onListed && onInstructions
    ? { skills: (name, skills) => onListed.skills(answerServer(name), skills), description: (name, text) => onInstructions(answerServer(name), text) }
    : undefined;
  return createA2AGateway({ config: loaded.config, guard, record: configured.record, logger, screen, authenticated: loaded.tokens.size > 0 });
}

/**
 * The stdio client's identity (`--agent`, `$QUADGUARD_AGENT`): a valid name, and one of the configured agents
 * when the config lists any, so a quarantined agent cannot come back under a new name by restarting.
 */
export function checkStdioAgent(agent: string, known: string[]): void {
  if (!AGENT_NAME_RE.test(agent)) {
    throw new ConfigError('config_invalid', `--agent ${JSON.stringify(agent)}: ${AGENT_NAME_RULE} (no spaces, control or zero-width characters).`);
  }
  if (known.length > 0 && !known.includes(agent)) {
    throw new ConfigError('config_invalid', `--agent "${agent}" is not one of the known agents (${known.join(', ')}); use one of them, or add it under agents: in the config (wrap: --agents).`);
  }
}

/**
 * The agents `wrap` accepts: `--agents a,b`, else `$QUADGUARD_AGENTS` (comma-separated), else the `agents:` keys of
 * `./quadguard.config.yaml` (the same file `wrap` takes its store from; only that key is read), else none (any
 * valid name).
 */
export function wrapKnownAgents(flag: string[] | undefined, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string[] {
  if (flag !== undefined && flag.length > 0) return flag;
  const fromEnv = (env.QUADGUARD_AGENTS ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  if (fromEnv.length > 0) return fromEnv;
  const file = findConfigFile({}, cwd);
  if (file === undefined) return [];
  let raw: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    raw = file.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
  } catch (err) {
    throw new ConfigError('config_unreadable', `cannot read the agents from ${file}: ${(err as Error).message}`, { cause: err });
  }
  const agents = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>).agents : undefined;
  return agents !== null && typeof agents === 'object' && !Array.isArray(agents) ? Object.keys(agents) : [];
}

/** A server key for `wrap`, from the wrapped command (`npx -y @scope/server-foo` → `server-foo`). */
export function wrapServerKey(command: string, args: string[]): string {
  const launcher = /^(npx|node|uvx|python3?|bunx|deno|pnpm|yarn)$/.test(basename(command));
  const target = launcher ? (args.find((a) => !a.startsWith('-')) ?? command) : command;
  const key = basename(target).replace(/\.(m?js|ts|py)$/, '').toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/^[^a-z]+/, '').slice(0, 32);
  return key.length > 0 ? key : 'wrapped';
}

/** The pid `serve --pid-file` wrote; a clear error when there is none (no proxy was started with that file). */
function readPidFile(file: string): number {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'it does not exist' : (err as Error).message;
    throw new ConfigError('config_unreadable', `reload: cannot read the pid file ${file}: ${why}; is a proxy running that was started with \`quadguard serve --http PORT --pid-file ${file}\`?`, { cause: err });
  }
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) throw new ConfigError('config_invalid', `reload: the pid file ${file} holds no process id (${JSON.stringify(text.trim().slice(0, 40))}); it is written by \`quadguard serve --pid-file ${file}\``);
  return pid;
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`--http: "${v}" is not a port number`);
  return n;
}

/** Registers `serve`, `wrap` and `demo` on the program. */
export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('Run the guarding proxy in front of the servers in a config file (stdio by default)')
    .option('-c, --config <file>', 'QuadGuard config file, YAML or JSON (default: ./quadguard.config.yaml)')
    .addOption(new Option('--http <port>', 'serve Streamable HTTP on /mcp and legacy SSE on /sse instead of stdio').argParser(parsePort))
    .option('--host <host>', 'HTTP bind address (default: http.host from the config, 127.0.0.1)')
    .option('--agent <name>', 'agent identity of the stdio client', process.env.QUADGUARD_AGENT ?? 'local')
    .option('--no-ui', 'with --http: do not serve the live view under /ui (token: $QUADGUARD_UI_TOKEN, else printed)')
    .option('--store <file>', 'state store, overriding the config\'s store: (see `quadguard status`)')
    .option('--pid-file <file>', 'write the process id here (for `quadguard reload --pid-file`)')
    .action(async (o: { config?: string; http?: number; host?: string; agent: string; ui: boolean; store?: string; pidFile?: string }) => {
      redirectConsoleToStderr();
      const logger = createRootLogger();
      const file = findConfigFile(o);
      if (!file) throw new ConfigError('config_unreadable', 'no config: pass --config FILE, or run `quadguard init` to write ./quadguard.config.yaml');
      // stdio does not use agent tokens: an unset token variable must not stop a desktop client's server.
      const loaded = loadConfigFile(file, process.env, o.http === undefined ? { tokens: false } : {});
      if (o.store) loaded.config.store = resolveStoreLocation({ store: o.store }).path;
      await runProxy(loaded, { ...o, storeSource: o.store ? 'flag' : 'config' }, logger);
    });

  program
    .command('reload')
    .description('Make a running `quadguard serve` re-read its config and policy book (SIGHUP); a book that fails keeps the old one')
    .option('--pid <pid>', 'the process id of the proxy', (v) => Number(v))
    .option('--pid-file <file>', 'the file `serve --pid-file` wrote')
    .action((o: { pid?: number; pidFile?: string }) => {
      const pid = o.pid ?? (o.pidFile ? readPidFile(o.pidFile) : NaN);
      if (!Number.isInteger(pid) || pid <= 0) throw new ConfigError('config_invalid', 'reload: give the proxy\'s --pid, or the --pid-file that `serve --pid-file` wrote');
      const running = o.pid === undefined ? runsQuadguard(pid) : undefined;
      if (running && !running.yes) {
        throw new ConfigError('config_invalid', `reload: process ${pid} (read from ${o.pidFile}) is not a quadguard proxy (${JSON.stringify(running.command.slice(0, 80))}): the pid file is stale, left by a proxy that was killed; nothing was signalled. Start the proxy with \`quadguard serve --http PORT --pid-file FILE\`, or give the --pid of the running one`);
      }
      try {
        process.kill(pid, 'SIGHUP');
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const from = o.pidFile ? ` (read from ${o.pidFile}: the proxy stopped and left it behind?)` : '';
        if (code === 'ESRCH') throw new ConfigError('config_invalid', `reload: no process ${pid} is running${from}; start the proxy with \`quadguard serve --http PORT --pid-file FILE\`, or give the --pid of the running one`, { cause: err });
        if (code === 'EPERM') throw new ConfigError('config_invalid', `reload: process ${pid} belongs to another user; run reload as the user that runs the proxy`, { cause: err });
        throw new ConfigError('config_invalid', `reload: cannot signal process ${pid}: ${(err as Error).message} (is the proxy running?)`, { cause: err });
      }
      process.stdout.write(`sent SIGHUP to ${pid}: the proxy logs "reloaded" or why the old book was kept\n`);
    });

  program
    .command('wrap')
    .description('Guard a single stdio MCP server without a config file: quadguard wrap [options] -- <command> [args...]')
    .option('-c, --config <file>', "take the policy, store, agents and guard settings from this config (an `init` folder's; its servers are not started)")
    .option('--policy <path>', 'policy book folder or file (default: the config\'s policy:, else the shipped policies/default)')
    .option('--no-policy', 'no guard: calls, results and messages pass unchecked and unaudited, listings unscreened; only the argument limits (depth, size) and the --agent/--agents check still apply. Not recommended')
    .option('--store <file|url>', 'state and audit store, a SQLite file or postgres://user@host:port/db (default: ./quadguard.config.yaml\'s store:, else $QUADGUARD_HOME/state.db, i.e. ~/.quadguard/state.db)')
    .option('--agent <name>', 'agent identity of the stdio client', process.env.QUADGUARD_AGENT ?? 'local')
    .option('--agents <names>', 'the known agents, comma-separated (repeatable): --agent must be one of them (default: $QUADGUARD_AGENTS, else the agents: of ./quadguard.config.yaml, else any valid name)', (v: string, prev: string[] = []) => [...prev, ...v.split(',').map((s) => s.trim()).filter(Boolean)])
    .option('--name <key>', 'server key, used in logs and audit (and as the prefix with --prefix); default: derived from the command')
    .option('--prefix', 'expose tools and prompts as <key>__<name> and URIs as <key>+<uri> (default: names unchanged)')
    .option('--env <NAME>', 'environment variable to pass through to the wrapped server (repeat for more)', (v: string, prev: string[] = []) => [...prev, ...v.split(',').filter(Boolean)])
    .option('--timeout <ms>', 'per-request timeout for the wrapped server', (v) => Number(v))
    .argument('<command...>', 'the server command and its arguments (after --)')
    // Everything after the server command is the server's, even without "--" (some clients strip it).
    .passThroughOptions()
    .action(async (cmd: string[], o: { config?: string; policy?: string | false; store?: string; agent: string; agents?: string[]; name?: string; prefix?: boolean; env?: string[]; timeout?: number }) => {
      redirectConsoleToStderr();
      const logger = createRootLogger();
      const [command, ...args] = cmd as [string, ...string[]];
      const env = Object.fromEntries((o.env ?? []).flatMap((k) => (process.env[k] !== undefined ? [[k, process.env[k]!]] : [])));
      // The server runs where the client started wrap (a config would otherwise run it in the config's folder).
      const server = { command, args, env, cwd: process.cwd(), namespace: o.prefix === true, ...(o.timeout ? { timeout_ms: o.timeout } : {}) };
      const key = o.name ?? wrapServerKey(command, args);
      if (o.config !== undefined) {
        // An `init` folder's config: its policy, store, agents and guard settings; only the server comes from here.
        const loaded = loadConfigFile(resolve(o.config), process.env, { tokens: false, servers: { [key]: server } });
        checkStdioAgent(o.agent, o.agents ?? Object.keys(loaded.config.agents));
        if (o.policy === false) delete loaded.config.policy;
        else if (o.policy !== undefined) loaded.config.policy = resolve(o.policy);
        if (o.store) loaded.config.store = resolveStoreLocation({ store: o.store }).path;
        await runProxy(loaded, { agent: o.agent, storeSource: o.store ? 'flag' : 'config' }, logger);
        return;
      }
      // Before anything starts: a quarantined agent cannot come back under a new --agent name by restarting.
      checkStdioAgent(o.agent, wrapKnownAgents(o.agents));
      const where = resolveStoreLocation({ store: o.store });
      const policy = o.policy === false ? undefined : (o.policy ?? join(PACKAGE_ROOT, 'policies', 'default'));
      // The agent is declared (with an empty profile) so that is not reported as a surprise at every start.
      const loaded = validateConfig({ servers: { [key]: server }, agents: { [o.agent]: {} }, store: where.path, ...(policy ? { policy } : {}) }, { file: 'wrap options' });
      await runProxy(loaded, { agent: o.agent, storeSource: where.source }, logger);
    });

  program
    .command('demo [name]')
    .description('Run a scenario against the proxy and the bundled servers and print a transcript: tour (default), travel, exfiltration, rugpull')
    .option('--transcript <file>', 'also write the transcript to this file')
    .action(async (name: string | undefined, o: { transcript?: string }) => {
      const { runDemo } = await import('./demo.js');
      const code = await runDemo({ out: process.stdout, ...(name ? { name } : {}), ...(o.transcript ? { transcriptFile: o.transcript } : {}) });
      process.exitCode = code;
    });
}
