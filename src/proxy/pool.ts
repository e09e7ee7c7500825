import { EventEmitter } from 'node:events';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../core/log.js';
import { Downstream } from './downstream.js';
import { exposeName, prefixUri } from './namespacing.js';
import type { ToolFilter } from './tool-filter.js';

/** Where an exposed tool or prompt really lives. */
export interface Route {
  server: string;
  /** The downstream's own name. */
  name: string;
}

/** A hook that sees each server's tools after every (re-)listing and returns the ones to expose. */
export type ToolsListedHook = (server: string, tools: Tool[]) => Tool[] | Promise<Tool[]>;

/**
 * The set of downstream servers and the merged, namespaced view of their catalogs. Emits `changed`
 * ('tools' | 'resources' | 'prompts') after the merged view changes, for fan-out to upstream sessions.
 */
export class DownstreamPool extends EventEmitter {
  readonly servers = new Map<string, Downstream>();
  private exposedTools = new Map<string, { route: Route; tool: Tool }>();
  private exposedPrompts = new Map<string, { route: Route; prompt: Prompt }>();
  private readonly discovery: Promise<void>;

  constructor(
    config: Config,
    readonly filter: ToolFilter,
    private readonly log: Logger,
    private readonly onToolsListed?: ToolsListedHook,
  ) {
    super();
    for (const [key, cfg] of Object.entries(config.servers)) {
      const d = new Downstream(key, cfg, log);
      d.on('changed', (kind: 'tools' | 'resources' | 'prompts') => void this.rebuild(kind));
      this.servers.set(key, d);
    }
    const all = Promise.all([...this.servers.values()].map((d) => d.firstAttempt)).then(() => undefined);
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

  private rebuild(kind: 'tools' | 'resources' | 'prompts'): Promise<void> {
    // Serialise rebuilds so an older listing never overwrites a newer one.
    this.pending = this.pending.then(async () => {
      if (kind === 'tools') await this.rebuildTools();
      if (kind === 'prompts') this.rebuildPrompts();
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
      const before = [...this.exposedTools.keys()].sort().join('\u0000');
      await this.rebuildTools();
      if ([...this.exposedTools.keys()].sort().join('\u0000') !== before) this.emit('changed', 'tools');
    });
    return this.pending;
  }

  private async rebuildTools(): Promise<void> {
    const next = new Map<string, { route: Route; tool: Tool }>();
    for (const [key, d] of this.servers) {
      let tools = d.catalog.tools.filter((t) => this.filter.isVisible(key, t.name));
      if (this.onToolsListed) {
        try {
          tools = await this.onToolsListed(key, tools);
        } catch (err) {
          this.log.error({ err, server: key }, 'onToolsListed hook failed; hiding this server\'s tools (fail closed)');
          tools = [];
        }
      }
      for (const t of tools) {
        const exposed = exposeName(key, t.name);
        if (next.has(exposed)) {
          this.log.warn({ server: key, tool: t.name, exposed }, 'exposed tool name collision; skipping');
          continue;
        }
        next.set(exposed, { route: { server: key, name: t.name }, tool: { ...t, name: exposed } });
      }
    }
    this.exposedTools = next;
  }

  private rebuildPrompts(): void {
    const next = new Map<string, { route: Route; prompt: Prompt }>();
    for (const [key, d] of this.servers) {
      for (const p of d.catalog.prompts) next.set(exposeName(key, p.name), { route: { server: key, name: p.name }, prompt: { ...p, name: exposeName(key, p.name) } });
    }
    this.exposedPrompts = next;
  }

  /** Whether server `key` listed a tool of this (downstream) name, exposed or not (hidden by the filter or the hook). */
  hasDownstreamTool(key: string, name: string): boolean {
    return this.servers.get(key)?.catalog.tools.some((t) => t.name === name) ?? false;
  }

  /** Exposed tools in a deterministic order. */
  tools(): Tool[] {
    return [...this.exposedTools.values()].map((e) => e.tool).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The exposed tool by its exposed name, if it is currently exposed. */
  tool(exposed: string): { route: Route; tool: Tool } | undefined {
    return this.exposedTools.get(exposed);
  }

  /** Exposed prompts in a deterministic order. */
  prompts(): Prompt[] {
    return [...this.exposedPrompts.values()].map((e) => e.prompt).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The route of an exposed prompt. */
  prompt(exposed: string): Route | undefined {
    return this.exposedPrompts.get(exposed)?.route;
  }

  /** Resources with `server+scheme://` URIs and the server key in the title. */
  resources(): Resource[] {
    return [...this.servers].flatMap(([key, d]) =>
      d.catalog.resources.map((r) => ({ ...r, uri: prefixUri(key, r.uri), title: `[${key}] ${r.title ?? r.name}` })),
    );
  }

  /** Resource templates with prefixed `uriTemplate`s. */
  templates(): ResourceTemplate[] {
    return [...this.servers].flatMap(([key, d]) =>
      d.catalog.templates.map((t) => ({ ...t, uriTemplate: prefixUri(key, t.uriTemplate), title: `[${key}] ${t.title ?? t.name}` })),
    );
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
