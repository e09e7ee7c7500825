import { EventEmitter } from 'node:events';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../core/log.js';
import { MergedCatalog, type HiddenRoute, type NameCollision, type Route } from './catalog-merge.js';
import { Downstream } from './downstream.js';
import { ListingScreen, matchesTemplate, type InstructionsHook, type ListingsHook, type ServerInstructions, type ToolsListedHook } from './listing-screen.js';
import { exposeName, prefixUri, unprefixUri } from './namespacing.js';
import type { ToolFilter } from './tool-filter.js';

export type { HiddenRoute, NameCollision, Route } from './catalog-merge.js';
export type { InstructionsHook, ListingsHook, ServerInstructions, ToolsListedHook } from './listing-screen.js';

/** The one options object of a `DownstreamPool` (the screen's hooks: each absent, that listing is passed on unscreened). */
export interface PoolOptions {
  config: Config;
  /** The per-server tool lists: what is listed, and (through the proxy's guard) what may be called. */
  filter: ToolFilter;
  logger: Logger;
  onToolsListed?: ToolsListedHook | undefined;
  onInstructions?: InstructionsHook | undefined;
  onListed?: ListingsHook | undefined;
}

/**
 * The set of downstream servers, their connections and namespacing, and the catalogue clients see: each server's
 * listing goes through the listing screen (`listing-screen.ts`), then into the merged view (`catalog-merge.ts`).
 * Emits `changed` ('tools' | 'resources' | 'prompts') after the merged view changes, for fan-out to upstream
 * sessions.
 */
export class DownstreamPool extends EventEmitter {
  readonly servers = new Map<string, Downstream>();
  readonly filter: ToolFilter;
  private readonly config: Config;
  private readonly screen: ListingScreen;
  private readonly merged: MergedCatalog;
  private readonly discovery: Promise<void>;

  constructor(opts: PoolOptions) {
    super();
    const { config, logger: log } = opts;
    this.config = config;
    this.filter = opts.filter;
    this.screen = new ListingScreen(opts, log);
    this.merged = new MergedCatalog(this, log);
    for (const [key, cfg] of Object.entries(config.servers)) {
      const d = new Downstream(key, cfg, log);
      d.on('changed', (kind: 'tools' | 'resources' | 'prompts' | 'instructions') => void (kind === 'instructions' ? this.screenInstructions(d) : this.rebuild(kind)));
      this.servers.set(key, d);
    }
    // Every first attempt (connect + full listing), then the rebuilds those listings queued: a list answered after
    // this sees every server that came up. The cap bounds the wait when a server hangs.
    const all = Promise.all([...this.servers.values()].map((d) => d.firstAttempt)).then(() => this.pending);
    const cap = new Promise<void>((r) => setTimeout(r, config.discovery_timeout_ms).unref());
    this.discovery = Promise.race([all, cap]);
  }

  /** Connects every server (in parallel). */
  start(): void {
    for (const d of this.servers.values()) d.start();
  }

  /**
   * Resolves when every server's first connection attempt has finished (or after the discovery cap) and the
   * catalog rebuilds it started are done: the onToolsListed hook is async (the store may be PostgreSQL), so the
   * first listing must wait for it, not only for discovery.
   */
  ready(): Promise<void> {
    return this.discovery.then(() => this.pending);
  }

  private pending = Promise.resolve();

  /** Whether a server's names and URIs are prefixed with its key. */
  namespaced(server: string): boolean {
    return this.config.servers[server]?.namespace !== false;
  }

  /** The name a server's tool or prompt is exposed under. */
  exposedName(server: string, name: string): string {
    return this.namespaced(server) ? exposeName(server, name) : name;
  }

  /** The URI (or URI template) a server's resource is exposed under. */
  exposedUri(server: string, uri: string): string {
    return this.namespaced(server) ? prefixUri(server, uri) : uri;
  }

  /**
   * The server and its own URI for an exposed URI: `<key>+<uri>` of a namespaced server, else the un-namespaced
   * server that lists the URI or has a template matching it, else the only un-namespaced server.
   */
  resolveUri(exposed: string): { server: string; uri: string } | undefined {
    const pre = unprefixUri(exposed);
    if (pre && this.servers.has(pre.server) && this.namespaced(pre.server)) return pre;
    const plain = [...this.servers.keys()].filter((k) => !this.namespaced(k));
    const listed = plain.find((k) => this.servers.get(k)!.catalog.resources.some((r) => r.uri === exposed));
    if (listed) return { server: listed, uri: exposed };
    const templated = plain.find((k) => this.servers.get(k)!.catalog.templates.some((t) => matchesTemplate(t.uriTemplate, exposed)));
    if (templated) return { server: templated, uri: exposed };
    return plain.length === 1 ? { server: plain[0]!, uri: exposed } : undefined;
  }

  /** Names two servers would both expose (found at each rebuild); `serve` refuses to start while there are any. */
  nameCollisions(): NameCollision[] {
    return this.merged.nameCollisions();
  }

  /**
   * Screens a (re)connected server's instructions (in the rebuild queue, so the first list and initialize wait for
   * it). Without a hook they are passed on as they are; a failing hook withholds them.
   */
  private screenInstructions(d: Downstream): Promise<void> {
    this.pending = this.pending.then(() => this.screen.instructions(d.key, d.instructions));
    return this.pending;
  }

  /** Each server's instructions, as screened at its last connection, in config order (servers without any left out). */
  instructions(): ServerInstructions[] {
    return [...this.servers.keys()].flatMap((k) => {
      const s = this.screen.instructionsOf(k);
      return s ? [s] : [];
    });
  }

  private rebuild(kind: 'tools' | 'resources' | 'prompts'): Promise<void> {
    // Serialise rebuilds so an older listing never overwrites a newer one.
    this.pending = this.pending.then(async () => {
      if (kind === 'tools') await this.rebuildTools();
      if (kind === 'prompts') await this.rebuildPrompts();
      if (kind === 'resources') {
        for (const [key, d] of this.servers) await this.screen.resources(key, d.catalog.resources, d.catalog.templates);
        this.merged.checkResourceCollisions([...this.servers].map(([key, d]) => [key, d.catalog.resources] as const));
      }
      this.emit('changed', kind);
    });
    return this.pending;
  }

  /**
   * Re-runs the filter and the onToolsListed hook over the cached catalogs (no downstream request) and announces
   * `tools/list_changed` only when the exposed set changed: how an approval given in another process (`quadguard
   * tools approve`) brings a hidden tool back without waiting for the server's next listing.
   */
  recheckTools(): Promise<void> {
    this.pending = this.pending.then(async () => {
      const before = this.merged.toolSetKey();
      await this.rebuildTools();
      if (this.merged.toolSetKey() !== before) this.emit('changed', 'tools');
    });
    return this.pending;
  }

  /** Each server's tools through the filter and the screen, merged. */
  private async rebuildTools(): Promise<void> {
    const perServer: Array<[string, Tool[]]> = [];
    for (const [key, d] of this.servers) perServer.push([key, await this.screen.tools(key, d.catalog.tools.filter((t) => this.filter.isVisible(key, t.name)))]);
    this.merged.setTools(perServer);
  }

  /** Each server's prompts through the screen, merged. */
  private async rebuildPrompts(): Promise<void> {
    const perServer = [];
    for (const [key, d] of this.servers) perServer.push({ server: key, ...(await this.screen.prompts(key, d.catalog.prompts)) });
    this.merged.setPrompts(perServer);
  }

  /**
   * Why the listing screen hid the resource a server's own `uri` names, or undefined: the URI of a hidden resource,
   * a hidden template itself, or a URI a hidden template matches (unless the server lists it among its visible
   * resources).
   */
  hiddenResource(server: string, uri: string): string | undefined {
    return this.screen.hiddenResource(server, uri);
  }

  /** The route of a prompt the listing screen hid, by exposed name, with why. */
  hiddenPrompt(exposed: string): HiddenRoute | undefined {
    return this.merged.hiddenPrompt(exposed);
  }

  /** The completion values of a server to pass on (screened when there is a listing screen; fails closed). */
  completionValues(server: string, ref: string, values: string[]): Promise<string[]> {
    return this.screen.completionValues(server, ref, values);
  }

  /** Whether the last screening of this server's tools failed (the store did not answer). */
  toolScreenFailed(key: string): boolean {
    return this.screen.toolScreenFailed(key);
  }

  /** Whether server `key` listed a tool of this (downstream) name, exposed or not (hidden by the filter or the hook). */
  hasDownstreamTool(key: string, name: string): boolean {
    return this.servers.get(key)?.catalog.tools.some((t) => t.name === name) ?? false;
  }

  /** Exposed tools in a deterministic order. */
  tools(): Tool[] {
    return this.merged.tools();
  }

  /** The exposed tool by its exposed name, if it is currently exposed. */
  tool(exposed: string): { route: Route; tool: Tool } | undefined {
    return this.merged.tool(exposed);
  }

  /** Exposed prompts in a deterministic order. */
  prompts(): Prompt[] {
    return this.merged.prompts();
  }

  /** The route of an exposed prompt. */
  prompt(exposed: string): Route | undefined {
    return this.merged.prompt(exposed);
  }

  /** Resources as clients list them (screened, merged; see `MergedCatalog.resources`). */
  resources(): Resource[] {
    return this.merged.resources([...this.servers].map(([key, d]) => [key, this.screen.listed(key, d.catalog).resources] as const));
  }

  /** Resource templates as clients list them, `uriTemplate` prefixed for namespaced servers. */
  templates(): ResourceTemplate[] {
    return this.merged.templates([...this.servers].map(([key, d]) => [key, this.screen.listed(key, d.catalog).templates] as const));
  }

  /** pids of stdio children that are currently running. */
  pids(): number[] {
    return [...this.servers.values()].map((d) => d.pid).filter((p): p is number => p !== undefined);
  }

  /** Stops every downstream server. */
  async close(): Promise<void> {
    await Promise.all([...this.servers.values()].map((d) => d.close()));
  }
}
