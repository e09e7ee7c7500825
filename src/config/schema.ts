import { AuditRetentionSchema } from '../store/audit-retention.js';
import { z } from 'zod';
import { CapabilityLabelSchema } from '../core/flow.js';
import { PipelineOptionsSchema } from '../guard/options.js';
import { LlmConfigSchema } from '../llm/config.js';

/**
 * The guard configuration file (YAML or JSON). Every object is strict so a misspelt key is an error that names
 * the field; defaults live here and nowhere else.
 */

/** Server keys become tool prefixes (`key__tool`) and URI scheme prefixes (`key+file://`), so they must be legal in both. */
export const ServerKeySchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,31}$/, 'server key must be 1–32 characters of a-z, 0-9 and "-", starting with a letter');

/** Per-server tool allow/deny glob lists (`*` and `?`); deny wins over allow. */
export const ToolListsSchema = z.strictObject({
  /** Only tools matching one of these globs are listed and callable. */
  allow: z.array(z.string().min(1)).optional(),
  /** Tools matching one of these globs are hidden from tools/list and refused in tools/call. */
  deny: z.array(z.string().min(1)).optional(),
});
export type ToolLists = z.infer<typeof ToolListsSchema>;

/** A secret read at start: `{ env: NAME }`, `{ file: PATH }` (first line, mode 0600) or `{ value: SECRET }`. */
export const SecretSourceSchema = z.union([
  z.strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'env must be an environment variable name') }),
  z.strictObject({ file: z.string().min(1) }),
  z.strictObject({ value: z.string().min(1) }),
]).describe('where the secret comes from: { env: NAME }, { file: PATH } or { value: SECRET }');

/** JWS algorithms a private-key JWT client assertion can be signed with. */
export const JWT_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

/**
 * OAuth for a remote server with the client_credentials grant (no browser, no person): QuadGuard gets a token from
 * the server's authorization server (found through the server's protected-resource metadata) and sends it. The
 * client authenticates with exactly one of `client_secret` (HTTP Basic) or `private_key` (a signed JWT assertion,
 * `private_key_jwt`, with `algorithm`).
 */
export const OAuthClientSchema = z
  .strictObject({
    /** The client id registered with the server's authorization server. */
    client_id: z.string().min(1),
    /** Its secret (sent with HTTP Basic authentication to the token endpoint). */
    client_secret: SecretSourceSchema.optional(),
    /** Its private key, PEM (PKCS#8) or JWK JSON; a file is read whole. Signs a JWT assertion (private_key_jwt). */
    private_key: SecretSourceSchema.describe('the private key, PEM (PKCS#8) or JWK JSON: { env: NAME }, { file: PATH } (read whole, mode 0600) or { value: KEY }').optional(),
    /** The algorithm the private key signs with (required with private_key). */
    algorithm: z.enum(JWT_ALGORITHMS).optional(),
    /** Scope to ask for (space-separated); default: none. */
    scope: z.string().min(1).optional(),
  })
  .superRefine((o, ctx) => {
    if ((o.client_secret === undefined) === (o.private_key === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of "client_secret" or "private_key"', path: ['client_secret'] });
    }
    if (o.private_key !== undefined && o.algorithm === undefined) ctx.addIssue({ code: 'custom', message: 'private_key needs "algorithm" (e.g. ES256, RS256)', path: ['algorithm'] });
    if (o.private_key === undefined && o.algorithm !== undefined) ctx.addIssue({ code: 'custom', message: 'algorithm applies only with private_key', path: ['algorithm'] });
  });
export type OAuthClientConfig = z.infer<typeof OAuthClientSchema>;

/** One downstream server: either a stdio `command` or a remote `url`. */
export const ServerConfigSchema = z
  .strictObject({
    /** stdio: the executable (never a whole command line; arguments go in args). */
    command: z.string().min(1).optional(),
    /** stdio: its arguments; relative paths mean the server's cwd (the config's folder by default). */
    args: z.array(z.string()).default([]),
    /** stdio: extra environment; the child gets HOME, LOGNAME, PATH, SHELL, TERM, USER plus exactly these. */
    env: z.record(z.string(), z.string()).default({}),
    /** stdio: working folder, relative to the config file; default the config file's folder. */
    cwd: z.string().optional(),
    /** remote: the server's URL (Streamable HTTP or SSE endpoint). */
    url: z.url({ protocol: /^https?$/, error: 'url must be an http:// or https:// URL' }).optional(),
    /** remote: `http` (Streamable HTTP) or `sse` (legacy SSE). */
    transport: z.enum(['http', 'sse']).default('http'),
    /** remote: extra HTTP headers sent on every request (e.g. Authorization). */
    headers: z.record(z.string(), z.string()).default({}),
    /** remote: OAuth client_credentials, client secret or private key (docs/proxying.md); the token is fetched as the server asks. */
    oauth: OAuthClientSchema.optional(),
    /** Tool allow/deny glob lists for this server. */
    tools: ToolListsSchema.default({}),
    /**
     * Capability labels of this server's tools for data-flow rules (docs/data-flow.md): a glob on the tool's own
     * name → labels. Overrides the policy book's labels and the tools' MCP annotations.
     */
    capabilities: z.record(z.string().min(1), z.array(CapabilityLabelSchema).min(1)).default({}),
    /** Per-request timeout for this server (tools/call, resources/read, prompts/get). */
    timeout_ms: z.number().int().positive().max(3_600_000).default(60_000),
    /** Connect + initialize timeout. */
    connect_timeout_ms: z.number().int().positive().max(600_000).default(15_000),
    /**
     * `true`: tools and prompts are exposed as `<key>__<name>`, resource URIs as `<key>+<uri>`. `false`: names and
     * URIs stay exactly as the server gives them (a name two servers would then share is an error at start).
     */
    namespace: z.boolean().default(true),
    /** `GET /readyz` answers 503 while this server is not connected (docs/operations.md). */
    required: z.boolean().default(false),
    /**
     * stdio: a path argument that goes through a symbolic link is checked and forwarded as the link-free path it
     * resolves to, so a link swapped between the check and the server's act cannot redirect it (docs/inspection.md).
     */
    resolve_paths: z.boolean().default(true),
  })
  .superRefine((s, ctx) => {
    if ((s.command === undefined) === (s.url === undefined)) {
      ctx.addIssue({ code: 'custom', message: 'give exactly one of "command" (stdio) or "url" (http/sse)', path: ['command'] });
    }
    if (s.url !== undefined && (s.args.length > 0 || Object.keys(s.env).length > 0 || s.cwd !== undefined)) {
      ctx.addIssue({ code: 'custom', message: 'args, env and cwd apply only to stdio servers (with "command")', path: ['url'] });
    }
    if (s.oauth !== undefined && s.url === undefined) {
      ctx.addIssue({ code: 'custom', message: 'oauth applies only to remote servers (with "url")', path: ['oauth'] });
    }
  });
export type ServerConfig = z.infer<typeof ServerConfigSchema>;

/**
 * Where an agent's bearer token comes from: an environment variable, a file readable only by its owner (mode
 * 0600, relative to the config's folder; what `quadguard init` writes) or a literal value.
 */
export const TokenSourceSchema = z.union([
  z.strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'env must be an environment variable name').describe('name of the environment variable holding the token') }),
  z.strictObject({ file: z.string().min(1).describe('file holding the token (first line; mode 0600; relative to the config file)') }),
  z.strictObject({ value: z.string().min(16, 'token value must be at least 16 characters').describe('the token itself (at least 16 characters); prefer env or file') }),
]).describe('where the agent\'s bearer token comes from: { env: NAME }, { file: PATH } or { value: TOKEN }');
export type TokenSource = z.infer<typeof TokenSourceSchema>;

/**
 * Agent names, in the config and on `--agent`: 1–64 printable ASCII letters, digits, `_`, `.`, `-` (no spaces,
 * control or zero-width characters, no look-alike letters), so one name is one identity in the audit and the store.
 */
export const AGENT_NAME_RE = /^[A-Za-z0-9_.-]{1,64}$/;
export const AGENT_NAME_RULE = 'agent name must be 1–64 of A-Z a-z 0-9 _ . -';

/** An agent identity: a token that proves it over HTTP and a profile bound to it (never taken from the client). */
export const AgentConfigSchema = z.strictObject({
  token: TokenSourceSchema.optional(),
  /** Attributes rules read as `profile.*` (role, age, …); bound to the identity, never taken from the client. */
  profile: z.record(z.string(), z.unknown()).default({}),
  /**
   * The person (or identity) this agent acts for: a message between the agent and its principal is the agent taking
   * a task or returning its work, not data passed on to another agent (docs/data-flow.md). Default `user`.
   */
  principal: z.string().min(1).default('user'),
  /** Other agents that may receive private data this agent read, in a message; any other agent may not. */
  share_private_with: z.array(z.string().min(1)).default([]),
});
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

/**
 * Signed client identities (docs/operations.md): bearer JWTs verified against a JWKS, a file (relative to the
 * config) or an https URL (fetched and cached; http only on a loopback host). The claim `claim` names the agent,
 * which must be one of `agents:`.
 */
export const JwtAuthSchema = z
  .strictObject({
    /** The JWKS as a file (relative to the config), read at start and at each reload. */
    jwks_file: z.string().min(1).optional(),
    /** The JWKS URL (https; http only on a loopback host), fetched on first use and cached `cache_ms`. */
    jwks_url: z.url({ protocol: /^https?$/, error: 'jwks_url must be an https:// URL' }).optional(),
    /** The `iss` every token must carry. */
    issuer: z.string().min(1),
    /** The `aud` every token must carry (one of them). */
    audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    /** The claim that names the agent. */
    claim: z.string().min(1).default('sub'),
    /** Clock skew allowed on exp/nbf/iat, seconds. */
    clock_skew_s: z.number().int().min(0).max(600).default(30),
    /** Accepted signature algorithms (never `none`). */
    algorithms: z.array(z.enum(['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'])).min(1).default(['RS256', 'ES256', 'EdDSA', 'Ed25519']),
    /** How long a fetched JWKS is used before it is fetched again, ms. */
    cache_ms: z.number().int().min(1000).default(10 * 60_000),
    /** A token whose key id the cached JWKS lacks (a rotated key) fetches it again at most once per this many ms. */
    refetch_ms: z.number().int().min(1000).default(30_000),
  })
  .superRefine((j, ctx) => {
    if ((j.jwks_file === undefined) === (j.jwks_url === undefined)) ctx.addIssue({ code: 'custom', message: 'give exactly one of jwks_file or jwks_url', path: ['jwks_file'] });
    if (j.jwks_url !== undefined) {
      const u = new URL(j.jwks_url);
      const loopback = u.hostname === 'localhost' || u.hostname === '[::1]' || u.hostname.startsWith('127.');
      if (u.protocol !== 'https:' && !loopback) ctx.addIssue({ code: 'custom', message: 'jwks_url must be https:// (http:// only on a loopback host)', path: ['jwks_url'] });
    }
  });
export type JwtAuthConfig = z.infer<typeof JwtAuthSchema>;

/** Upstream HTTP options (Streamable HTTP on /mcp, legacy SSE on /sse + /messages). */
export const HttpConfigSchema = z.strictObject({
  /** Bind address of `serve --http`; a non-loopback address requires agent tokens. */
  host: z.string().min(1).default('127.0.0.1'),
  /** express body limit for /mcp and /messages (bytes or '4mb'). */
  body_limit: z.union([z.number().int().positive(), z.string().regex(/^\d+(b|kb|mb)$/i)]).default('4mb'),
  /** Extra Host header names accepted besides localhost, 127.0.0.1 and [::1] (DNS-rebinding protection). */
  allowed_hosts: z.array(z.string().min(1)).default([]),
  /** Stateless Streamable HTTP: a new server per POST, no sessions, no server push. */
  stateless: z.boolean().default(false),
  /** Sessions idle longer than this are closed. */
  session_idle_ms: z.number().int().positive().default(30 * 60_000),
  /**
   * How long an idle keep-alive connection stays open (advertised to clients as `Keep-Alive: timeout=`).
   * Node's default 5 s closed connections under the next request of a client too busy to read for 6 s. Behind a
   * load balancer, keep it above the balancer's idle timeout.
   */
  keep_alive_ms: z.number().int().min(1000).max(3_600_000).default(65_000),
  /** Bearer JWTs from an identity provider, besides the agents' static tokens. */
  jwt: JwtAuthSchema.optional(),
  /** On SIGTERM, how long in-flight requests may run before the proxy closes anyway, ms. */
  drain_ms: z.number().int().min(0).max(600_000).default(10_000),
  /**
   * Who may read /healthz, /readyz and /metrics: `loopback` (default: a client on this host, no token; others need
   * an agent's token) or `any` (no token from anywhere: behind a load balancer on a private network).
   */
  ops_access: z.enum(['loopback', 'any']).default('loopback'),
  /** Whether decisions, guard times, forwards and store faults are counted for `GET /metrics` (false: no /metrics, 404). */
  metrics: z.boolean().default(true),
});
export type HttpConfig = z.infer<typeof HttpConfigSchema>;

/**
 * One downstream A2A agent (docs/a2a.md): its base URL (the card is read from `/.well-known/agent-card.json` there)
 * and what QuadGuard sends to reach it. Callers reach it through QuadGuard at `/a2a/<name>`.
 */
export const A2AAgentSchema = z.strictObject({
  /** The agent's base URL. */
  url: z.url({ protocol: /^https?$/, error: 'url must be an http:// or https:// URL' }),
  /** Extra HTTP headers sent on every request to the agent (card included). */
  headers: z.record(z.string(), z.string()).default({}),
  /** A bearer token sent as `Authorization: Bearer …` to the agent: { env: NAME }, { file: PATH } or { value: TOKEN }. */
  bearer_token: SecretSourceSchema.optional(),
  /** Per-request timeout of the methods that answer once (streams are not timed). */
  timeout_ms: z.number().int().positive().max(3_600_000).default(60_000),
  /**
   * Whether callers may configure push notifications (webhooks the agent calls back). A webhook is a route out of
   * the guard's sight, so it is refused unless this is true.
   */
  push_notifications: z.boolean().default(false),
});
export type A2AAgentConfig = z.infer<typeof A2AAgentSchema>;

/** The A2A proxy (docs/a2a.md): downstream agents by name, served on the HTTP front end at `/a2a/<name>`. */
export const A2AConfigSchema = z.strictObject({
  /** Agents by name; the name is the path segment (`/a2a/<name>`) and the recipient of what callers send. */
  agents: z.record(z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'A2A agent name must be 1–32 characters of a-z, 0-9 and "-", starting with a letter (it is a URL path segment)'), A2AAgentSchema).default({}),
  /** The URL callers reach QuadGuard at, for the rewritten cards (default: the scheme and Host of the card request). */
  public_url: z.url({ protocol: /^https?$/, error: 'public_url must be an http:// or https:// URL' }).optional(),
  /** Accept A2A v0.3 callers (method names such as message/send) through the SDK's compatibility layer. */
  v0_3: z.boolean().default(true),
});
export type A2AConfig = z.infer<typeof A2AConfigSchema>;

/** Limits applied to tools/call arguments before the guard and before any downstream server sees them. */
export const LimitsConfigSchema = z.strictObject({
  /** Deepest nesting of tools/call arguments accepted. */
  max_argument_depth: z.number().int().positive().max(1000).default(32),
  /** Largest tools/call arguments accepted, in bytes of JSON. */
  max_argument_bytes: z.number().int().positive().default(1_000_000),
  /** Largest single stdio message from the client (bytes); a longer line is answered -32600 and discarded. */
  max_message_bytes: z.number().int().positive().max(9 * 1024 * 1024).default(4 * 1024 * 1024),
});
export type LimitsConfig = z.infer<typeof LimitsConfigSchema>;

/** The whole configuration file. */
export const ConfigSchema = z.strictObject({
  /** Downstream MCP servers by key; the key prefixes their tools (`key__tool`). */
  servers: z.record(ServerKeySchema, ServerConfigSchema).default({}),
  /** Policy book folder or file (relative to the config); absent: tool lists only, no guard. */
  policy: z.string().min(1).optional(),
  /** Ed25519 public key file: the book's signature must verify against it, or the proxy does not start. */
  policy_public_key: z.string().min(1).optional(),
  /** SQLite file (the default, one process; relative to the config), or `postgres://user@host:port/db` for replicas sharing one guard. */
  store: z.string().min(1).default('.quadguard/state.db'),
  /** The PostgreSQL password from an environment variable (kept out of the file), as agent tokens are. */
  store_password: z.strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'env must be an environment variable name') }).optional(),
  /**
   * The audit key (64 hex digits) every replica on a postgres:// store shares, from an environment variable or a file
   * (relative to the config), kept out of the database: each audit row carries its HMAC (docs/shared-state.md).
   * Default: `QUADGUARD_AUDIT_KEY` / `QUADGUARD_AUDIT_KEY_FILE`; a SQLite store keeps its own key beside the file.
   */
  audit_key: z.union([
    z.strictObject({ env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'env must be an environment variable name') }),
    z.strictObject({ file: z.string().min(1) }),
  ]).optional(),
  /**
   * Answer once a decision's audit row is in an append-only journal, and commit rows to the store in groups (replayed
   * at the next open after a crash). Any number of proxies may journal into one store: a decision's audit id is fixed
   * when it is answered and its row chained when committed (docs/audit.md). `false`: each decision's row is committed
   * before its answer. Default: `true` on a SQLite store (the journal sits beside the file); `false` on PostgreSQL,
   * where the journal is a file on the replica's own disk (`QUADGUARD_AUDIT_JOURNAL_DIR`): turn it on only where that
   * disk outlives the container and the replica restarts on it.
   */
  audit_journal: z.boolean().optional(),
  /**
   * Retention of the audit log, applied by the running proxy in the background (docs/audit.md): rows older than
   * `days` are dropped in batches, first exported to `export_dir` when given; the rest verifies from a MACed anchor.
   * Absent: rows are kept until `quadguard audit prune`. Read at start (a reload does not change it).
   */
  audit_retention: AuditRetentionSchema.optional(),
  /** Agent identities by name: an HTTP bearer token and the profile bound to it. */
  agents: z.record(z.string().regex(AGENT_NAME_RE, AGENT_NAME_RULE), AgentConfigSchema).default({}),
  http: HttpConfigSchema.default(HttpConfigSchema.parse({})),
  limits: LimitsConfigSchema.default(LimitsConfigSchema.parse({})),
  /** Downstream A2A agents, proxied and guarded on the HTTP front end at /a2a/<name> (docs/a2a.md). */
  a2a: A2AConfigSchema.default(A2AConfigSchema.parse({})),
  /** `strict` lists `guard_check_message`; `dotted` lists `guard.check_message`. Both names are always callable. */
  message_tool_name: z.enum(['strict', 'dotted']).default('strict'),
  /** Guard pipeline settings: tracker budget, threat watcher, denial thresholds (see src/guard/options.ts). */
  guard: PipelineOptionsSchema.optional(),
  /** An OpenAI-compatible model for semantic predicates and soft-denial review; absent: deterministic guard only. */
  llm: LlmConfigSchema.optional(),
  /**
   * Cap on waiting for initial downstream discovery: list requests wait until every server has finished its first
   * connection and listing (or failed), but never longer than this.
   */
  discovery_timeout_ms: z.number().int().positive().max(600_000).default(10_000),
});
export type Config = z.infer<typeof ConfigSchema>;
export type ConfigInput = z.input<typeof ConfigSchema>;
