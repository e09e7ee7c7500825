import { nameWordsOf } from '../core/credential-fields.js';
import { compileGlob, type GlobMatcher } from '../core/glob.js';
import type { CapabilityLabel, LabelOrigin } from '../core/flow.js';
import { DEFAULT_READ_WORDS, DEFAULT_SEND_WORDS, type Capabilities } from '../policy/schema.js';

/** A tool of the session's catalogue, in its own words (for action provenance, provenance-actions.ts). */
export interface CatalogueTool {
  server: string;
  name: string;
  description?: string;
  args?: string[];
}

/** The words of a tool name: `GmailSendEmail`, `send_email`, `send-email` all give send and email. */
export const nameWords = nameWordsOf;

/**
 * Capability labels of tools (docs/data-flow.md), from, in order: the config (per server and tool glob), the
 * book's `capabilities.tools` (globs on `<server>__<tool>`), the tool's MCP annotations as the server listed
 * them, and last the book's `unlabelled` labels (plus `external_send` when a `send_words` word is in its name).
 * Labels from annotations or the default are the server's word or a guess: they never make a tool safe for another
 * server's private data (the data-flow stage treats such a tool as a sink for it, see dataflow.ts).
 */

/** The MCP tool annotations that say what a tool does (hints from the server; the config and book can override). */
export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  openWorldHint?: boolean;
  idempotentHint?: boolean;
}

/** A config override: tools of `server` matching `match` (a glob on the tool's own name) get `labels`. */
export interface CapabilityOverride {
  server: string;
  match: string;
  labels: CapabilityLabel[];
}

export interface ToolLabels {
  labels: CapabilityLabel[];
  origin: LabelOrigin;
  /** The glob or annotation that decided, for `tools list`. */
  because: string;
}

/** Labels implied by MCP annotations, or undefined when the tool has none of the three hints. */
export function labelsFromAnnotations(a: ToolAnnotations | undefined): { labels: CapabilityLabel[]; because: string } | undefined {
  if (!a || (a.readOnlyHint === undefined && a.destructiveHint === undefined && a.openWorldHint === undefined)) return undefined;
  const hints = Object.entries(a).filter(([k, v]) => k !== 'idempotentHint' && typeof v === 'boolean').map(([k, v]) => `${k}=${v}`).join(' ');
  // MCP defaults: readOnlyHint false, destructiveHint true, openWorldHint true.
  const openWorld = a.openWorldHint !== false;
  if (a.readOnlyHint === true) {
    // A read-only tool returns data: private unless it reaches the open world by its own say-so, where the
    // arguments (a URL, a query) leave and the answer is still treated as private (mail and drives are remote too);
    // what the open world returns, third parties may have written (docs/provenance.md).
    return { labels: a.openWorldHint === true ? ['private_source', 'network_fetch', 'untrusted_source'] : ['private_source'], because: hints };
  }
  const acts: CapabilityLabel[] = openWorld ? ['external_send'] : ['file_write'];
  // An explicit destructiveHint: the tool deletes or overwrites (a consequential action, docs/provenance.md).
  if (a.destructiveHint === true) acts.push('deletion');
  return { labels: acts, because: hints };
}

export class CapabilityMap {
  private readonly book: Array<{ match: string[]; test: GlobMatcher[]; labels: CapabilityLabel[] }>;
  private readonly overrides: Array<{ server: string; match: string; test: GlobMatcher; labels: CapabilityLabel[] }>;
  private readonly unlabelled: CapabilityLabel[];
  private readonly sendWords: ReadonlySet<string>;
  private readonly readWords: ReadonlySet<string>;
  private readonly annotations = new Map<string, ToolAnnotations | undefined>();
  /** The tools each server listed (or an eval case gave): the session's catalogue, for action provenance. */
  private readonly tools = new Map<string, CatalogueTool>();
  private catalogueVersion = 0;

  constructor(book: Partial<Capabilities> | undefined, overrides: readonly CapabilityOverride[] = []) {
    this.book = (book?.tools ?? []).map((t) => ({ match: t.match, test: t.match.map((g) => compileGlob(g)), labels: t.labels }));
    this.overrides = overrides.map((o) => ({ ...o, test: compileGlob(o.match) }));
    this.unlabelled = book?.unlabelled ?? ['private_source'];
    this.sendWords = new Set((book?.send_words ?? DEFAULT_SEND_WORDS).map((w) => w.toLowerCase()));
    this.readWords = new Set((book?.read_words ?? DEFAULT_READ_WORDS).map((w) => w.toLowerCase()));
  }

  /** Remembers the annotations of a server's tools as it listed them (called on every tools/list). */
  recordTools(server: string, tools: ReadonlyArray<{ name: string; annotations?: unknown; description?: unknown; title?: unknown; inputSchema?: unknown }>): void {
    for (const t of tools) {
      this.annotations.set(`${server}__${t.name}`, t.annotations as ToolAnnotations | undefined);
      const props = (t.inputSchema as { properties?: unknown } | undefined)?.properties;
      const words = [t.title, t.description].filter((x): x is string => typeof x === 'string').join('. ');
      this.tools.set(`${server}__${t.name}`, {
        server,
        name: t.name,
        ...(words ? { description: words.slice(0, 2000) } : {}),
        ...(props !== null && typeof props === 'object' ? { args: Object.keys(props).slice(0, 64) } : {}),
      });
    }
    this.catalogueVersion++;
  }

  /** The catalogue of tools listed so far, and a number that changes whenever it does. */
  catalogue(): { size: number; version: number; tools: () => CatalogueTool[] } {
    return { size: this.tools.size, version: this.catalogueVersion, tools: () => [...this.tools.values()] };
  }

  /** The labels of `<server>__<tool>`; `annotations` overrides what was recorded from the listing. */
  labelsOf(server: string | undefined, tool: string, annotations?: ToolAnnotations): ToolLabels {
    const qualified = server === undefined ? tool : `${server}__${tool}`;
    const o = this.overrides.find((x) => x.server === server && x.test(tool));
    if (o) return { labels: o.labels, origin: 'config', because: `servers.${o.server}.capabilities["${o.match}"]` };
    for (const b of this.book) {
      const i = b.test.findIndex((t) => t(qualified));
      if (i >= 0) return { labels: b.labels, origin: 'book', because: b.match[i]! };
    }
    const fromHints = labelsFromAnnotations(annotations ?? this.annotations.get(qualified));
    if (fromHints) return { ...fromHints, origin: 'annotations' };
    const words = nameWords(tool);
    const word = words.some((w) => this.readWords.has(w)) ? undefined : words.find((w) => this.sendWords.has(w));
    if (word !== undefined && !this.unlabelled.includes('external_send')) {
      return { labels: [...this.unlabelled, 'external_send'], origin: 'unlabelled', because: `capabilities.unlabelled; "${word}" in its name (capabilities.send_words)` };
    }
    return { labels: this.unlabelled, origin: 'unlabelled', because: 'capabilities.unlabelled' };
  }
}
