import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError, PromptSchema, ResourceSchema, ResourceTemplateSchema, ToolSchema, type Prompt, type Resource, type ResourceTemplate, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { errorMessage } from '../core/errors.js';
import type { Logger } from '../core/log.js';

/** Everything one downstream server offers, as it named it (un-namespaced). */
export interface Catalog {
  tools: Tool[];
  resources: Resource[];
  templates: ResourceTemplate[];
  prompts: Prompt[];
}

/** A catalog with nothing in it (server not yet connected). */
export function emptyCatalog(): Catalog {
  return { tools: [], resources: [], templates: [], prompts: [] };
}

const MAX_PAGES = 100;

/**
 * Lists every page of `method`, parsing the page permissively and each item on its own, so one malformed item
 * (e.g. an inputSchema without `type: "object"`) is logged and skipped instead of failing the whole listing.
 */
async function listAll<T>(client: Client, method: string, key: string, item: z.ZodType<T>, log: Logger, timeout: number): Promise<T[]> {
  const page = z.looseObject({ [key]: z.array(z.unknown()).default([]), nextCursor: z.string().optional() });
  const out: T[] = [];
  let cursor: string | undefined;
  for (let n = 0; n < MAX_PAGES; n++) {
    const res = (await client.request({ method, params: cursor ? { cursor } : {} } as never, page as never, { timeout })) as Record<string, unknown>;
    for (const raw of (res[key] as unknown[]) ?? []) {
      const p = item.safeParse(raw);
      if (p.success) out.push(p.data);
      else log.warn({ item: { name: (raw as { name?: unknown })?.name }, problem: z.prettifyError(p.error) }, `skipping malformed ${key.replace(/s$/, '')} from downstream`);
    }
    cursor = res.nextCursor as string | undefined;
    if (!cursor) break;
  }
  return out;
}

/** The parts of a catalog a server lists apart (resources with their templates). */
export type CatalogPart = 'tools' | 'resources' | 'prompts';

/** A fetched catalog, with the optional parts whose listing failed (kept as they were before) and why. */
export interface Listing {
  catalog: Catalog;
  failed: Array<{ part: 'resources' | 'prompts'; error: string }>;
}

/**
 * Fetches (or refreshes one part of) a server's catalog, honouring its capabilities. A failing list of resources or
 * prompts is reported in `failed` and keeps what `previous` held (the caller lists it again later); only a failing
 * tools listing throws.
 */
export async function fetchCatalog(client: Client, log: Logger, timeout: number, only?: CatalogPart, previous: Catalog = emptyCatalog()): Promise<Listing> {
  const caps = client.getServerCapabilities() ?? {};
  const cat: Catalog = { ...previous };
  const failed: Listing['failed'] = [];
  if ((!only || only === 'tools') && caps.tools) {
    cat.tools = await listAll(client, 'tools/list', 'tools', ToolSchema, log, timeout);
  }
  if ((!only || only === 'resources') && caps.resources) {
    try {
      const resources = await listAll(client, 'resources/list', 'resources', ResourceSchema, log, timeout);
      // A server with resources but no templates may not know the method at all.
      cat.templates = await listAll(client, 'resources/templates/list', 'resourceTemplates', ResourceTemplateSchema, log, timeout).catch((err: unknown) => {
        if (err instanceof McpError && err.code === ErrorCode.MethodNotFound) return [];
        throw err;
      });
      cat.resources = resources;
    } catch (err) {
      failed.push({ part: 'resources', error: errorMessage(err) });
    }
  }
  if ((!only || only === 'prompts') && caps.prompts) {
    try {
      cat.prompts = await listAll(client, 'prompts/list', 'prompts', PromptSchema, log, timeout);
    } catch (err) {
      failed.push({ part: 'prompts', error: errorMessage(err) });
    }
  }
  return { catalog: cat, failed };
}

/** `current` with `part` (resources: with the templates) taken from `fetched`: a listing of one part replaces no other. */
export function withPart(current: Catalog, fetched: Catalog, part: CatalogPart): Catalog {
  if (part === 'resources') return { ...current, resources: fetched.resources, templates: fetched.templates };
  return part === 'tools' ? { ...current, tools: fetched.tools } : { ...current, prompts: fetched.prompts };
}
