import type { Prompt, Resource, ResourceTemplate, Tool } from '@modelcontextprotocol/sdk/types.js';
import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { Logger } from '../core/log.js';

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

/** The screen's hooks (each absent: that listing is passed on unscreened). */
export interface ScreenHooks {
  onToolsListed?: ToolsListedHook | undefined;
  onInstructions?: InstructionsHook | undefined;
  onListed?: ListingsHook | undefined;
}

/** A server's instructions as clients get them: passed on, or withheld (with the reason). */
export type ServerInstructions = { server: string; text: string } | { server: string; withheld: string };

/** Why an item is hidden when the listing screen itself failed on its server's listing. */
export const SCREEN_FAILED = 'could not be screened for injected instructions (the screen failed; see the QuadGuard log)';

/** Why a prompt the screen took out is hidden. */
export function hiddenPromptWhy(failed: boolean): string {
  return failed ? SCREEN_FAILED : 'its listing (title, description or an argument\'s) carries injected instructions';
}

/** Whether `uri` matches an RFC 6570 template (a malformed template matches nothing). */
export function matchesTemplate(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null;
  } catch {
    return false;
  }
}

/** The items of `all` that are not in `kept` (by identity: the hooks return the items they keep). */
function without<T>(all: T[], kept: T[]): T[] {
  const k = new Set(kept);
  return all.filter((x) => !k.has(x));
}

/** A server's resources and templates as screened at its last listing, and which of the two the screen failed on. */
interface ScreenedResources {
  resources: Resource[];
  templates: ResourceTemplate[];
  hiddenUris: Set<string>;
  hiddenTemplates: string[];
  failed: { resources: boolean; templates: boolean };
}

/**
 * The listing screen: runs the hooks over each server's tools, instructions, prompts, resources, templates and
 * completion values, fails closed when a hook throws, and remembers what it passed and hid (per server, under the
 * server's own names). It knows nothing of namespacing or of other servers: merging is `MergedCatalog`'s job.
 */
export class ListingScreen {
  /** Each server's tools as the hook last passed them (kept when a later screening fails: a store blip). */
  private readonly screenedTools = new Map<string, Tool[]>();
  /** Servers whose last tool screening failed (their new or changed tools wait for the store). */
  private readonly toolsFailed = new Set<string>();
  private readonly screenedInstructions = new Map<string, ServerInstructions>();
  /** Absent for a server: not screened (without a listings hook), the catalog's items are listed. */
  private readonly screenedResources = new Map<string, ScreenedResources>();

  constructor(
    private readonly hooks: ScreenHooks,
    private readonly log: Logger,
  ) {}

  /** Whether resources, templates and prompts are screened at all (a listings hook was given). */
  get screensListings(): boolean {
    return this.hooks.onListed !== undefined;
  }

  /**
   * A server's visible tools, screened by the tools hook. When the hook fails (most often the store is unreachable
   * for a moment: the pin check reads it), a tool that passed before with the very same definition stays: hiding it
   * would tell clients it is unknown and make the audit claim its definition changed. Only new or changed tools wait
   * (fail closed) until the store answers.
   */
  async tools(server: string, tools: Tool[]): Promise<Tool[]> {
    if (!this.hooks.onToolsListed) return tools;
    try {
      const passed = await this.hooks.onToolsListed(server, tools);
      this.screenedTools.set(server, passed);
      this.toolsFailed.delete(server);
      return passed;
    } catch (err) {
      const before = new Map((this.screenedTools.get(server) ?? []).map((t) => [t.name, JSON.stringify(t)]));
      const kept = tools.filter((t) => before.get(t.name) === JSON.stringify(t));
      if (!this.toolsFailed.has(server)) this.log.error({ err, server, kept: kept.length, held: tools.length - kept.length }, 'screening the server\'s tools failed; keeping those screened before, holding back new or changed ones (fail closed)');
      this.toolsFailed.add(server);
      return kept;
    }
  }

  /** Whether the last screening of this server's tools failed (the store did not answer). */
  toolScreenFailed(server: string): boolean {
    return this.toolsFailed.has(server);
  }

  /** Screens a (re)connected server's instructions: passed on as they are without a hook; a failing hook withholds them. */
  async instructions(server: string, text: string | undefined): Promise<void> {
    if (text === undefined || text.trim() === '') return void this.screenedInstructions.delete(server);
    let screened: { text: string } | { withheld: string };
    try {
      screened = this.hooks.onInstructions ? await this.hooks.onInstructions(server, text) : { text };
    } catch (err) {
      this.log.error({ err, server }, 'screening the server\'s instructions failed; withholding them (fail closed)');
      screened = { withheld: 'they could not be screened' };
    }
    this.screenedInstructions.set(server, { server, ...screened });
  }

  /** A server's instructions as screened at its last connection (undefined: it gave none). */
  instructionsOf(server: string): ServerInstructions | undefined {
    return this.screenedInstructions.get(server);
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

  /** A server's prompts, screened: the visible ones, and each hidden one with why. */
  async prompts(server: string, prompts: Prompt[]): Promise<{ visible: Prompt[]; hidden: Array<{ name: string; why: string }> }> {
    const hook = this.hooks.onListed;
    const { items: visible, failed } = await this.screened(server, 'prompts', prompts, hook?.prompts.bind(hook));
    const why = hiddenPromptWhy(failed);
    return { visible, hidden: without(prompts, visible).map((p) => ({ name: p.name, why })) };
  }

  /** Screens a server's resources and templates (with no hook: nothing is recorded, the catalog is listed). */
  async resources(server: string, resources: Resource[], templates: ResourceTemplate[]): Promise<void> {
    const hook = this.hooks.onListed;
    if (!hook) return;
    const r = await this.screened(server, 'resources', resources, hook.resources.bind(hook));
    const t = await this.screened(server, 'resource templates', templates, hook.templates.bind(hook));
    this.screenedResources.set(server, {
      resources: r.items,
      templates: t.items,
      hiddenUris: new Set(without(resources, r.items).map((x) => x.uri)),
      hiddenTemplates: without(templates, t.items).map((x) => x.uriTemplate),
      failed: { resources: r.failed, templates: t.failed },
    });
  }

  /** A server's resources and templates to list: as screened, or (never screened) the catalog's without a hook, none with one. */
  listed(server: string, catalog: { resources: Resource[]; templates: ResourceTemplate[] }): { resources: Resource[]; templates: ResourceTemplate[] } {
    const s = this.screenedResources.get(server);
    if (s) return s;
    return this.hooks.onListed ? { resources: [], templates: [] } : catalog;
  }

  /**
   * Why the screen hid the resource a server's own `uri` names, or undefined: the URI of a hidden resource, a hidden
   * template itself, or a URI a hidden template matches (unless the server lists it among its visible resources).
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

  /** The completion values of a server to pass on (screened when there is a listings hook; fails closed). */
  async completionValues(server: string, ref: string, values: string[]): Promise<string[]> {
    if (!this.hooks.onListed || values.length === 0) return values;
    try {
      return await this.hooks.onListed.completions(server, ref, values);
    } catch (err) {
      this.log.error({ err, server }, 'screening completion values failed; dropping them (fail closed)');
      return [];
    }
  }
}
