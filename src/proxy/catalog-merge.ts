import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../core/log.js';

/** Where an exposed tool or prompt really lives. */
export interface Route {
  server: string;
  /** The downstream's own name. */
  name: string;
}

/** A route the listing screen hid, and why. */
export type HiddenRoute = Route & { why: string };

/** Two servers (or a server and the proxy's own tool) that would expose the same name or URI. */
export interface NameCollision {
  kind: 'tool' | 'prompt' | 'resource';
  name: string;
  servers: [string, string];
}

/** How a server's names and URIs are exposed (the pool's namespacing). */
export interface Naming {
  namespaced(server: string): boolean;
  exposedName(server: string, name: string): string;
  exposedUri(server: string, uri: string): string;
}

/** Whether an exposed name is one of the proxy's own tools (guard_check_message and its dotted alias). */
function isOwnToolName(name: string): boolean {
  return name === 'guard_check_message' || name === 'guard.check_message';
}

/**
 * The merged, namespaced view of every server's screened listings: which exposed name routes to which server's
 * tool or prompt, the resources and templates clients list, and the names two servers would both expose (the second
 * is hidden and the collision logged). Each `set…` replaces one kind's view with a fresh merge in config order.
 */
export class MergedCatalog {
  private exposedTools = new Map<string, { route: Route; tool: Tool }>();
  private exposedPrompts = new Map<string, { route: Route; prompt: Prompt }>();
  /** Prompts the listing screen hid, by exposed name, with why. */
  private hiddenPrompts = new Map<string, HiddenRoute>();
  private readonly collisions = new Map<string, NameCollision>();

  constructor(
    private readonly naming: Naming,
    private readonly log: Logger,
  ) {}

  /** Names two servers would both expose (found at each merge); `serve` refuses to start while there are any. */
  nameCollisions(): NameCollision[] {
    return [...this.collisions.values()];
  }

  private clearCollisions(kind: NameCollision['kind']): void {
    for (const k of [...this.collisions.keys()]) if (k.startsWith(`${kind}\u0000`)) this.collisions.delete(k);
  }

  private collide(kind: NameCollision['kind'], name: string, first: string, second: string): void {
    const key = `${kind}\u0000${name}`;
    if (!this.collisions.has(key)) {
      this.collisions.set(key, { kind, name, servers: [first, second] });
      this.log.error({ kind, name, servers: [first, second] }, `servers "${first}" and "${second}" both expose the ${kind} "${name}"; the second is hidden (give one of them namespace: true)`);
    }
  }

  /** Merges each server's screened tools (in config order) into the exposed tools. */
  setTools(perServer: ReadonlyArray<readonly [string, Tool[]]>): void {
    this.clearCollisions('tool');
    const next = new Map<string, { route: Route; tool: Tool }>();
    for (const [key, tools] of perServer) {
      for (const t of tools) {
        const exposed = this.naming.exposedName(key, t.name);
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

  /** Merges each server's screened prompts (visible and hidden, in config order) into the exposed prompts. */
  setPrompts(perServer: ReadonlyArray<{ server: string; visible: Prompt[]; hidden: Array<{ name: string; why: string }> }>): void {
    this.clearCollisions('prompt');
    const next = new Map<string, { route: Route; prompt: Prompt }>();
    const hidden = new Map<string, HiddenRoute>();
    for (const { server: key, visible, hidden: gone } of perServer) {
      for (const p of gone) hidden.set(this.naming.exposedName(key, p.name), { server: key, name: p.name, why: p.why });
      for (const p of visible) {
        const exposed = this.naming.exposedName(key, p.name);
        const taken = next.get(exposed)?.route.server;
        if (taken !== undefined) this.collide('prompt', exposed, taken, key);
        else next.set(exposed, { route: { server: key, name: p.name }, prompt: { ...p, name: exposed } });
      }
    }
    this.exposedPrompts = next;
    this.hiddenPrompts = hidden;
  }

  /** Finds the resource URIs two servers' catalogs would both expose. */
  checkResourceCollisions(perServer: ReadonlyArray<readonly [string, Resource[]]>): void {
    this.clearCollisions('resource');
    const seen = new Map<string, string>();
    for (const [key, resources] of perServer) {
      for (const r of resources) {
        const exposed = this.naming.exposedUri(key, r.uri);
        const taken = seen.get(exposed);
        if (taken !== undefined && taken !== key) this.collide('resource', exposed, taken, key);
        else seen.set(exposed, key);
      }
    }
  }

  /** The exposed tool names, in one string (to tell whether a re-merge changed the set). */
  toolSetKey(): string {
    return [...this.exposedTools.keys()].sort().join('\u0000');
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

  /** The route of a prompt the listing screen hid, by exposed name, with why. */
  hiddenPrompt(exposed: string): HiddenRoute | undefined {
    return this.hiddenPrompts.get(exposed);
  }

  /**
   * Resources: a namespaced server's with `<key>+<uri>` URIs and the key in the title, an un-namespaced server's
   * as they are. Of two un-namespaced servers listing the same URI, only the first is listed (a collision).
   */
  resources(perServer: ReadonlyArray<readonly [string, Resource[]]>): Resource[] {
    const seen = new Set<string>();
    return perServer.flatMap(([key, resources]) =>
      resources.flatMap((r) => {
        const uri = this.naming.exposedUri(key, r.uri);
        if (seen.has(uri)) return [];
        seen.add(uri);
        return [this.naming.namespaced(key) ? { ...r, uri, title: `[${key}] ${r.title ?? r.name}` } : r];
      }),
    );
  }

  /** Resource templates, `uriTemplate` prefixed for namespaced servers. */
  templates(perServer: ReadonlyArray<readonly [string, ResourceTemplate[]]>): ResourceTemplate[] {
    return perServer.flatMap(([key, templates]) =>
      templates.map((t) => (this.naming.namespaced(key) ? { ...t, uriTemplate: this.naming.exposedUri(key, t.uriTemplate), title: `[${key}] ${t.title ?? t.name}` } : t)),
    );
  }
}
