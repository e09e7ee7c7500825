import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { PromptSchema, ResourceSchema, ResourceTemplateSchema, ToolSchema, type Prompt, type Resource, type ResourceTemplate, type Tool } from '@modelcontextprotocol/sdk/types.js';
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

/** Tools the proxy cannot forward: task-required tools need the experimental tasks API. */
function forwardable(tool: Tool, log: Logger): boolean {
  if ((tool as { execution?: { taskSupport?: string } }).execution?.taskSupport === 'required') {
    log.info({ tool: tool.name }, 'dropping tool with execution.taskSupport "required" (tasks are not proxied)');
    return false;
  }
  return true;
}

/**
 * Fetches (or refreshes one part of) a server's catalog, honouring its capabilities. A failing list of
 * resources or prompts is logged and left empty; only a failing tools listing throws.
 */
export async function fetchCatalog(
  client: Client,
  log: Logger,
  timeout: number,
  only?: 'tools' | 'resources' | 'prompts',
  previous: Catalog = emptyCatalog(),
): Promise<Catalog> {
  const caps = client.getServerCapabilities() ?? {};
  const cat: Catalog = { ...previous };
  if ((!only || only === 'tools') && caps.tools) {
    cat.tools = (await listAll(client, 'tools/list', 'tools', ToolSchema, log, timeout)).filter((t) => forwardable(t, log));
  }
  if ((!only || only === 'resources') && caps.resources) {
    try {
      cat.resources = await listAll(client, 'resources/list', 'resources', ResourceSchema, log, timeout);
      cat.templates = await listAll(client, 'resources/templates/list', 'resourceTemplates', ResourceTemplateSchema, log, timeout);
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'resources listing failed');
    }
  }
  if ((!only || only === 'prompts') && caps.prompts) {
    try {
      cat.prompts = await listAll(client, 'prompts/list', 'prompts', PromptSchema, log, timeout);
    } catch (err) {
      log.warn({ err: errorMessage(err) }, 'prompts listing failed');
    }
  }
  return cat;
}
