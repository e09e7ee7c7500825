import { EventEmitter } from 'node:events';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../config/schema.js';
import type { Logger } from '../core/log.js';
import { Downstream } from './downstream.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import { exposeName, prefixUri, unprefixUri } from './namespacing.js';
import type { ToolFilter } from './tool-filter.js';

/** Where an exposed tool or prompt really lives. */
export interface Route {
  server: string;
  /** The downstream's own name. */
  name: string;
}

/** Two servers (or a server and the proxy's own tool) that would expose the same name or URI. */
export interface NameCollision {
  kind: 'tool' | 'prompt' | 'resource';
  name: string;
  servers: [string, string];
}

/** A hook that sees each server's tools after every (re-)listing and returns the ones to expose. */
export type ToolsListedHook = (server: string, tools: Tool[]) => Tool[] | Promise<Tool[]>;

/**
 * A hook that screens a server's `instructions` after each connection: the text to pass to clients, or why it was
 * withheld. Throwing withholds them (fail closed).
 */
export type InstructionsHook = (server: string, instructions: string) => Promise<{ text: string } | { withheld: string }>;

/**
 * Hooks that screen a server's other listings after every (re-)listing and return the items to expose, and the
 * completion values it suggests (the ones to pass on). Throwing hides all of that server's items (fail closed).
 */
export interface ListingsHook {
  prompts(server: string, prompts: Prompt[]): Promise<Prompt[]>;
  resources(server: string, resources: Resource[]): Promise<Resource[]>;
  templates(server: string, templates: ResourceTemplate[]): Promise<ResourceTemplate[]>;
  completions(server: string, ref: string, values: string[]): Promise<string[]>;
}

/** A server's instructions as clients get them: passed on, or withheld (with the reason). */
export type ServerInstructions = { server: string; text: string } | { server: string; withheld: string };

/** Whether an exposed name is one of the proxy's own tools (guard_check_message and its dotted alias). */
function isOwnToolName(name: string): boolean {
  return name === 'guard_check_message' || name === 'guard.check_message';
}

/** Why an item is hidden when the listing screen itself failed on its server's listing. */
const SCREEN_FAILED = 'could not be screened for injected instructions (the screen failed; see the QuadGuard log)';

/** A route the listing screen hid, and why. */
export type HiddenRoute = Route & { why: string };

/** The items of `all` that are not in `kept` (by identity: the hooks return the items they keep). */
function without<T>(all: T[], kept: T[]): T[] {
  const k = new Set(kept);
  return all.filter((x) => !k.has(x));
}

/** Whether `uri` matches an RFC 6570 template (a malformed template matches nothing). */
function matchesTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

/**
 * The set of downstream servers and the merged, namespaced view of their catalogs. Emits `changed`
 * ('tools' | 'resources' | 'prompts') after the merged view changes, for fan-out to upstream sessions.
 */
export class DownstreamPool extends EventEmitter {
  readonly servers = new Map<string, Downstream>();
  private exposedTools = new Map<string, { route: Route; tool: Tool }>();
  /** Each server's tools as the hook last passed them (kept when a later screening fails: a store blip). */
  private readonly screenedTools = new Map<string, Tool[]>();
  /** Servers whose last tool screening failed (their new or changed tools wait for the store). */
  private readonly screenFailed = new Set<string>();
  private exposedPrompts = new Map<string, { route: Route; prompt: Prompt }>();
  private readonly discovery: Promise<void>;
  private readonly collisions = new Map<string, NameCollision>();
  private readonly screenedInstructions = new Map<string, ServerInstructions>();
  /** Prompts the listing screen hid, by exposed name, with why. */
  private hiddenPrompts = new Map<string, HiddenRoute>();
  /**
   * Each server's resources and templates as screened at its last listing (absent: not screened, the catalog's), and
   * which of the two the screen failed on (then every item of it is hidden).
   */
  private readonly screenedResources = new Map<string, { resources: Resource[]; templates: ResourceTemplate[]; hiddenUris: Set<string>; hiddenTemplates: string[]; failed: { resources: boolean; templates: boolean } }>();

  constructor(
    private readonly config: Config,
    readonly filter: ToolFilter,
    private readonly log: Logger,
    private readonly onToolsListed?: ToolsListedHook,
    private readonly onInstructions?: InstructionsHook,
    private readonly onListed?: ListingsHook,
  ) {
    super();
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
    return [...this.collisions.values()];
  }

  private collide(kind: NameCollision['kind'], name: string, first: string, second: string): void {
    const key = `${kind}\u0000${name}`;
    if (!this.collisions.has(key)) {
      this.collisions.set(key, { kind, name, servers: [first, second] });
      this.log.error({ kind, name, servers: [first, second] }, `servers "${first}" and "${second}" both expose the ${kind} "${name}"; the second is hidden (give one of them namespace: true)`);
    }
  }

  /**
   * Screens a (re)connected server's instructions (in the rebuild queue, so the first list and initialize wait for
   * it). Without a hook they are passed on as they are; a failing hook withholds them.
   */
  private screenInstructions(d: Downstream): Promise<void> {
    this.pending = this.pending.then(async () => {
      const text = d.instructions;
      if (text === undefined || text.trim() === '') return void this.screenedInstructions.delete(d.key);
      let screened: { text: string } | { withheld: string };
      try {
        screened = this.onInstructions ? await this.onInstructions(d.key, text) : { text };
      } catch (err) {
        this.log.error({ err, server: d.key }, 'screening the server\'s instructions failed; withholding them (fail closed)');
        screened = { withheld: 'they could not be screened' };
      }
      this.screenedInstructions.set(d.key, { server: d.key, ...screened });
    });
    return this.pending;
  }

  /** Each server's instructions, as screened at its last connection, in config order (servers without any left out). */
  instructions(): ServerInstructions[] {
    return [...this.servers.keys()].flatMap((k) => {
      const s = this.screenedInstructions.get(k);
      return s ? [s] : [];
    });
  }

  private rebuild(kind: 'tools' | 'resources' | 'prompts'): Promise<void> {
    // Serialise rebuilds so an older listing never overwrites a newer one.
    this.pending = this.pending.then(async () => {
      if (kind === 'tools') await this.rebuildTools();
      if (kind === 'prompts') await this.rebuildPrompts();
      if (kind === 'resources') {
        await this.screenResources();
        this.checkResourceCollisions();
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
      const before = [...this.exposedTools.keys()].sort().join('\u0000');
      await this.rebuildTools();
      if ([...this.exposedTools.keys()].sort().join('\u0000') !== before) this.emit('changed', 'tools');
    });
    return this.pending;
  }

  private async rebuildTools(): Promise<void> {
    for (const k of [...this.collisions.keys()]) if (k.startsWith('tool\u0000')) this.collisions.delete(k);
    const next = new Map<string, { route: Route; tool: Tool }>();
    for (const [key, d] of this.servers) {
      let tools = d.catalog.tools.filter((t) => this.filter.isVisible(key, t.name));
      if (this.onToolsListed) {
        try {
          tools = await this.onToolsListed(key, tools);
          this.screenedTools.set(key, tools);
          this.screenFailed.delete(key);
        } catch (err) {
          // Most often the store is unreachable for a moment (the pin check reads it). A tool that passed before
          // with the very same definition stays: hiding it would tell clients it is unknown and make the audit
          // claim its definition changed. Only new or changed tools wait (fail closed) until the store answers.
          const before = new Map((this.screenedTools.get(key) ?? []).map((t) => [t.name, JSON.stringify(t)]));
          const kept = tools.filter((t) => before.get(t.name) === JSON.stringify(t));
          if (!this.screenFailed.has(key)) this.log.error({ err, server: key, kept: kept.length, held: tools.length - kept.length }, 'screening the server\'s tools failed; keeping those screened before, holding back new or changed ones (fail closed)');
          this.screenFailed.add(key);
          tools = kept;
        }
      }
      for (const t of tools) {
        const exposed = this.exposedName(key, t.name);
        const taken = next.get(exposed)?.route.server ?? (isOwnToolName(exposed) ? 'quadguard' : undefined);
        if (taken !== undefined) {
          this.collide('tool', exposed, taken, key);
          continue;
        }
        next.set(exposed, { route: { server: key, name: t.name }, tool: { ...t, name: exposed } });
      }
    }
    this.exposedTools = next;
  }

  /** Runs one listing hook over a server's items; a failing hook hides them all (fail closed) and says so. */
  private async screened<T>(server: string, what: string, items: T[], hook: ((server: string, items: T[]) => Promise<T[]>) | undefined): Promise<{ items: T[]; failed: boolean }> {
    if (!hook || items.length === 0) return { items, failed: false };
    try {
      return { items: await hook(server, items), failed: false };
    } catch (err) {
      this.log.error({ err, server }, `screening the server's ${what} failed; hiding them (fail closed)`);
      return { items: [], failed: true };
    }
  }

  private async rebuildPrompts(): Promise<void> {
    for (const k of [...this.collisions.keys()]) if (k.startsWith('prompt\u0000')) this.collisions.delete(k);
    const next = new Map<string, { route: Route; prompt: Prompt }>();
    const hidden = new Map<string, HiddenRoute>();
    for (const [key, d] of this.servers) {
      const { items: visible, failed } = await this.screened(key, 'prompts', d.catalog.prompts, this.onListed?.prompts.bind(this.onListed));
      const kept = new Set(visible);
      const why = failed ? SCREEN_FAILED : 'its listing (title, description or an argument\'s) carries injected instructions';
      for (const p of d.catalog.prompts) if (!kept.has(p)) hidden.set(this.exposedName(key, p.name), { server: key, name: p.name, why });
      for (const p of visible) {
        const exposed = this.exposedName(key, p.name);
        const taken = next.get(exposed)?.route.server;
        if (taken !== undefined) this.collide('prompt', exposed, taken, key);
        else next.set(exposed, { route: { server: key, name: p.name }, prompt: { ...p, name: exposed } });
      }
    }
    this.exposedPrompts = next;
    this.hiddenPrompts = hidden;
  }

  /** Screens every server's resources and templates (with no hook: nothing is recorded, the catalog is listed). */
  private async screenResources(): Promise<void> {
    if (!this.onListed) return;
    for (const [key, d] of this.servers) {
      const { resources, templates } = d.catalog;
      const r = await this.screened(key, 'resources', resources, this.onListed.resources.bind(this.onListed));
      const t = await this.screened(key, 'resource templates', templates, this.onListed.templates.bind(this.onListed));
      this.screenedResources.set(key, {
        resources: r.items,
        templates: t.items,
        hiddenUris: new Set(without(resources, r.items).map((x) => x.uri)),
        hiddenTemplates: without(templates, t.items).map((x) => x.uriTemplate),
        failed: { resources: r.failed, templates: t.failed },
      });
    }
  }

  /**
   * Why the listing screen hid the resource a server's own `uri` names, or undefined: the URI of a hidden resource,
   * a hidden template itself, or a URI a hidden template matches (unless the server lists it among its visible
   * resources).
   */
  hiddenResource(server: string, uri: string): string | undefined {
    const s = this.screenedResources.get(server);
    if (!s) return undefined;
    if (s.hiddenUris.has(uri)) return s.failed.resources ? SCREEN_FAILED : 'its listing (name, title or description) carries injected instructions';
    if (s.hiddenTemplates.length === 0 || s.resources.some((r) => r.uri === uri)) return undefined;
    const template = s.hiddenTemplates.find((t) => t === uri || matchesTemplate(t, uri));
    if (template === undefined) return undefined;
    return s.failed.templates ? `its resource template ${SCREEN_FAILED}` : 'the listing of its resource template carries injected instructions';
  }

  /** The route of a prompt the listing screen hid, by exposed name, with why. */
  hiddenPrompt(exposed: string): HiddenRoute | undefined {
    return this.hiddenPrompts.get(exposed);
  }

  /** The completion values of a server to pass on (screened when there is a listing screen; fails closed). */
  async completionValues(server: string, ref: string, values: string[]): Promise<string[]> {
    if (!this.onListed || values.length === 0) return values;
    try {
      return await this.onListed.completions(server, ref, values);
    } catch (err) {
      this.log.error({ err, server }, 'screening completion values failed; dropping them (fail closed)');
      return [];
    }
  }

  private checkResourceCollisions(): void {
    for (const k of [...this.collisions.keys()]) if (k.startsWith('resource\u0000')) this.collisions.delete(k);
    const seen = new Map<string, string>();
    for (const [key, d] of this.servers) {
      for (const r of d.catalog.resources) {
        const exposed = this.exposedUri(key, r.uri);
        const taken = seen.get(exposed);
        if (taken !== undefined && taken !== key) this.collide('resource', exposed, taken, key);
        else seen.set(exposed, key);
      }
    }
  }

  /** Whether server `key` listed a tool of this (downstream) name, exposed or not (hidden by the filter or the hook). */
  /** Whether the last screening of this server's tools failed (the store did not answer). */
  toolScreenFailed(key: string): boolean {
    return this.screenFailed.has(key);
  }

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

  /**
   * Resources: a namespaced server's with `<key>+<uri>` URIs and the key in the title, an un-namespaced server's
   * as they are. Of two un-namespaced servers listing the same URI, only the first is listed (a collision).
   */
  resources(): Resource[] {
    const seen = new Set<string>();
    return [...this.servers].flatMap(([key, d]) =>
      (this.screenedResources.get(key)?.resources ?? (this.onListed ? [] : d.catalog.resources)).flatMap((r) => {
        const uri = this.exposedUri(key, r.uri);
        if (seen.has(uri)) return [];
        seen.add(uri);
        return [this.namespaced(key) ? { ...r, uri, title: `[${key}] ${r.title ?? r.name}` } : r];
      }),
    );
  }

  /** Resource templates, `uriTemplate` prefixed for namespaced servers. */
  templates(): ResourceTemplate[] {
    return [...this.servers].flatMap(([key, d]) =>
      (this.screenedResources.get(key)?.templates ?? (this.onListed ? [] : d.catalog.templates)).map((t) => (this.namespaced(key) ? { ...t, uriTemplate: prefixUri(key, t.uriTemplate), title: `[${key}] ${t.title ?? t.name}` } : t)),
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
