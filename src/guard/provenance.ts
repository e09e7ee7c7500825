import { createHmac, randomUUID } from 'node:crypto';
import { contentText, stringLeaves } from '../core/fields.js';
import type { FlowFacts, FlowSource, Steering } from '../core/flow.js';
import type { Logger } from '../core/log.js';
import { normaliseAmount, reversed, steeringValues, valuesIn, normaliseValue, type FoundValue } from '../core/text/steering-values.js';
import { rot13, unwrapViews } from '../core/text/readings.js';
import { KINDS } from '../core/kinds.js';
import { contentOf, serverOf, toolOf, type Decision, type Interaction } from '../core/types.js';
import type { FlowStore } from '../store/flow.js';
import type { CapabilityMap, CatalogueTool } from './capabilities.js';
import type { Principals } from './principals.js';
import { consequentialOf, isUntrustedSource } from './consequential.js';
import { ActionIndex, linkTokens } from './provenance-actions.js';
import type { ProvenanceOptions } from './options.js';

/**
 * The provenance stage (docs/provenance.md), beside data flow and over the same store:
 *
 * - `record` (after an allowed result of an untrusted source, or a message another agent sends): keeps keyed hashes
 *   of the steering values third parties wrote in it (per field), and marks the session's tools it asks for, under
 *   the reading identity (a message's recipient).
 * - `inspect` (a consequential tool call, before predicates): looks up whether its steering arguments carry such a
 *   value, or whether untrusted content asked for this tool; the answer goes on `Interaction.flow.steered`.
 *
 * Nothing is kept in clear: values are HMAC-SHA256 under a key derived from the store's flow key, prefixed `p`.
 */

/** Argument names whose text is a message's content, not where it goes: not steering. */
const FREE_ARG = /(?:^|[^a-z])(?:body|content|text|message|msg|subject|title|description|desc|comment|note|notes|summary|caption|memo|reason|html|markdown|prompt|query|keywords?)(?:$|[^a-z])/i;
/** Arguments that are a command or code (kept whole as a command value too). */
const COMMAND_ARG = /(?:^|[^a-z])(?:command|cmd|script|code|shell|line)(?:$|[^a-z])/i;
/** Arguments that are an amount of money: a plain number in one is an amount (`amount: 250`, `total: "1.000,00"`). */
const AMOUNT_ARG = /(?:^|[^a-z])(?:amount|amt|value|sum|total|price|cost|fee)(?:$|[^a-z])/i;
/** A call's link tokens looked up at most (its first ones; a request's links are words of one sentence window). */
const MAX_CALL_LINKS = 512;
/** Texts longer than this are not read backwards or in rot13 (the plain and decoded readings still are). */
const MAX_SHIFTED_READING = 256 * 1024;

export interface ProvenanceDeps {
  store: FlowStore;
  capabilities: CapabilityMap;
  /** Whom each agent acts for: a message from the recipient's principal is not untrusted. */
  principals: Principals;
  options: ProvenanceOptions;
  ttlMs: number;
  now: () => number;
  logger: Logger;
  /**
   * An untrusted text's hashes computed off the event loop (the worker pool, for a long text), or undefined to
   * compute them here; the same answer either way (`untrustedHashes`).
   */
  untrustedHashesOf?: (text: string, key: Buffer, job: UntrustedHashesJob) => Promise<UntrustedHashes | undefined>;
}

/** What `untrustedHashes` answers. */
export interface UntrustedHashes {
  byField: Array<[string, string[]]>;
  overflow: boolean;
}

/** What reading an untrusted text takes besides the text and key: a catalogue is sent with an id its index is kept by. */
export interface UntrustedHashesJob {
  who: UntrustedWho;
  limit: number;
  catalogue: { id: string; tools: CatalogueTool[]; similarity: number } | undefined;
}

export class ProvenanceStage {
  private hasher: Promise<(s: string) => string> | undefined;
  private index: { version: number; tools: CatalogueTool[]; index: ActionIndex } | undefined;
  /** Names this stage's catalogues to the worker pool, which keeps their indexes. */
  private readonly catalogueId = randomUUID();

  constructor(private readonly deps: ProvenanceDeps) {}

  private hash(): Promise<(s: string) => string> {
    this.hasher ??= this.deps.store.key().then(provenanceHasher);
    this.hasher.catch(() => (this.hasher = undefined));
    return this.hasher;
  }

  private actions(): ActionIndex | undefined {
    return this.catalogue()?.index;
  }

  /** The session's catalogue and its index, unless it holds more than `max_tools` tools. */
  private catalogue(): { version: number; tools: CatalogueTool[]; index: ActionIndex } | undefined {
    const cat = this.deps.capabilities.catalogue();
    if (cat.size > this.deps.options.max_tools) return undefined;
    if (this.index?.version !== cat.version) {
      const tools = cat.tools();
      this.index = { version: cat.version, tools, index: new ActionIndex(tools, { similarity: this.deps.options.action_similarity }) };
    }
    return this.index;
  }

  /** Sets `flow.consequential` and, for a consequential call steered by untrusted content, `flow.steered`. */
  async inspect(i: Interaction, facts: FlowFacts): Promise<void> {
    if (!this.deps.options.enabled || i.kind !== 'tool_call') return;
    const consequential = consequentialOf(facts.labels, facts.origin, i.tool);
    if (consequential.length === 0) return;
    facts.consequential = consequential;
    const h = await this.hash();
    const wanted = new Map<string, { by: Steering['by']; argument?: string; what: string }>();
    for (const leaf of stringLeaves(i.arguments ?? {})) {
      const field = leaf.field.replace(/\{keys\}$/, '').replace(/^\./, '');
      if (leaf.field.endsWith('{keys}') || FREE_ARG.test(field)) continue;
      const found = valuesIn(leaf.text);
      const whole = leaf.text.trim();
      if (COMMAND_ARG.test(field)) found.push({ kind: 'command', normalised: normaliseValue('command', whole)!, start: 0, end: whole.length });
      if (/^[\w-]{4,64}$/.test(whole) && /[a-z]/i.test(whole)) found.push({ kind: 'id', normalised: whole.toLowerCase(), start: 0, end: whole.length });
      const amount = AMOUNT_ARG.test(field) ? normaliseAmount(whole) : undefined;
      if (amount !== undefined) found.push({ kind: 'amount', normalised: amount, start: 0, end: whole.length });
      for (const v of found) wanted.set(h(valueKey(v.kind, v.normalised)), { by: 'value', argument: field, what: mask(v.normalised) });
    }
    const qualified = `${i.server}__${i.tool}`;
    // Untrusted content asked for this tool: the call is that content's doing when one of its arguments came from the
    // request (each of the argument's words and numbers is a link of it), or when no argument carries anything (the
    // action is then the whole call: `{}`, `{confirm: true}`). A document that names the tool and says what it does
    // gives no argument the call uses.
    const own = this.actions()?.ownWords(i.server ?? '', i.tool) ?? new Set(linkTokens(i.tool));
    const links = argumentLinks(i.arguments, own).map((l) => ({ argument: l.argument, hashes: l.tokens.map((t) => h(`a\0${qualified}\0${t}`)) }));
    if (!carriesAnything(i.arguments)) wanted.set(h(`a\0${qualified}`), { by: 'action', what: qualified });
    wanted.set(h('o\0'), { by: 'overflow', what: 'a read too large to keep' });
    if (this.deps.options.trifecta && consequential.some((c) => c === 'external_send' || c === 'public_sink')) {
      wanted.set(h(`u\0${i.session}`), { by: 'trifecta', what: 'untrusted content' });
      wanted.set(h(`r\0${i.session}`), { by: 'trifecta', what: 'private data' });
    }
    const matches = await this.deps.store.match(i.agent, [...wanted.keys(), ...links.flatMap((l) => l.hashes)], this.deps.now());
    if (matches.length === 0) return;
    const order: Steering['by'][] = ['value', 'action', 'overflow'];
    // A tool's own earlier result is not a third party steering it: a call passing on what the same tool returned
    // (a page token, an id, its own name in its answer) is how such tools are used.
    const ownRead = (src: { server?: string | undefined; tool?: string | undefined }) => src.server === i.server && src.tool === i.tool;
    const third = matches.filter((m) => !ownRead(m.source));
    const hits = third.flatMap((m) => m.hashes.filter((hh) => wanted.has(hh)).map((hh) => ({ ...wanted.get(hh)!, source: m.source })));
    // An argument taken from a request: all its tokens among the links one read kept for this tool.
    for (const m of third) {
      const kept = new Set(m.hashes);
      const l = links.find((x) => x.hashes.every((hh) => kept.has(hh)));
      if (l) hits.push({ by: 'action', argument: l.argument, what: qualified, source: m.source });
    }
    for (const by of order) {
      const hit = hits.filter((x) => x.by === by).sort((a, b) => a.source.at - b.source.at)[0];
      if (hit) {
        facts.steered = steering(hit);
        return;
      }
    }
    const tri = hits.filter((x) => x.by === 'trifecta');
    if (new Set(tri.map((x) => x.what)).size === 2) facts.steered = steering({ ...tri[0]!, what: 'untrusted content and private data in this session' });
  }

  /**
   * After an allowed, audited interaction: an untrusted result's third-party values and the tools it asks for are
   * kept under the reading identity. Throws when they cannot be stored (the caller fails closed).
   */
  async record(i: Interaction, decision: Decision): Promise<void> {
    if (!this.deps.options.enabled || decision.decision !== 'allow') return;
    const content = contentOf(i);
    if (content === undefined) return;
    const untrusted = this.untrustedReading(i);
    const h = await this.hash();
    const now = this.deps.now();
    const expires = now + this.deps.ttlMs;
    const base: FlowSource = {
      id: decision.auditId ?? `prov-${now}-${Math.random().toString(36).slice(2)}`,
      kind: i.kind,
      session: i.session,
      at: now,
      ...(serverOf(i) !== undefined ? { server: serverOf(i)! } : {}),
      ...(i.kind === 'tool_result' ? { tool: i.tool } : {}),
      ...('uri' in i && i.uri !== undefined ? { uri: i.uri } : {}),
      ...(i.kind === 'message' ? { uri: `message from ${i.sender ?? i.agent}` } : {}),
    };
    if (untrusted === undefined) {
      if (this.deps.options.trifecta && this.privateRead(i)) await this.deps.store.recordRead(i.agent, { ...base, id: `${base.id}#private` }, [h(`r\0${i.session}`)], expires);
      return;
    }
    const text = decision.replacement ? contentText(decision.replacement) : contentText(content);
    const byField = new Map<string, Set<string>>();
    const add = (field: string, hash: string) => {
      let s = byField.get(field);
      if (!s) byField.set(field, (s = new Set()));
      s.add(hash);
    };
    // The session marker (lethal trifecta) is the reader's own session; a message is read in the sender's.
    if (untrusted.reader === i.agent) add('session', h(`u\0${i.session}`));
    const limit = this.deps.options.max_values_per_read;
    const catalogue = this.catalogue();
    // A long text is read in the worker pool (the same function), else here.
    const offloaded = this.deps.untrustedHashesOf
      ? await this.deps.untrustedHashesOf(text, await this.deps.store.key(), {
          who: { everyValue: untrusted.everyValue, field: untrusted.field },
          limit,
          catalogue: catalogue ? { id: `${this.catalogueId}:${catalogue.version}`, tools: catalogue.tools, similarity: this.deps.options.action_similarity } : undefined,
        })
      : undefined;
    const found = offloaded ?? untrustedHashes(text, untrusted, catalogue?.index, h, limit);
    for (const [field, hashes] of found.byField) for (const x of hashes) add(field, x);
    if (found.overflow) {
      this.deps.logger.warn({ session: i.session, agent: untrusted.reader }, 'an untrusted read held more steering values or tools than are kept; consequential calls of this identity are held (fail closed)');
      add('overflow', h('o\0'));
    }
    for (const [field, hashes] of byField) {
      await this.deps.store.recordRead(untrusted.reader, { ...base, id: `${base.id}#${field}`, uri: `${base.uri ?? base.tool ?? base.kind}#${field}` }, [...hashes], expires);
    }
  }

  /**
   * Whose untrusted read an interaction's content is, or undefined when it is trusted. `everyValue`: every value in
   * it is a third party's, whatever its shape (a structured answer's fields are that party's too), kept as `field`.
   *
   * - A result of a tool labelled `untrusted_source` or of an unlabelled one, and every resource and prompt: read by
   *   the calling identity. An A2A agent's answer (server `a2a:<name>`) is all that agent's writing.
   * - A message another agent sends (guard_check_message, an A2A request): read by its recipient, all of it the
   *   sender's writing. A message from the recipient's own principal (the person it acts for) is that person's word,
   *   and one to the sender's principal is work handed back: neither is untrusted.
   */
  private untrustedReading(i: Interaction): { reader: string; everyValue: boolean; field: string } | undefined {
    // What the interaction brings its receiver is the kinds table's `read_of`.
    switch (KINDS[i.kind].read_of) {
      case 'tool': {
        const tool = toolOf(i);
        if (tool === undefined) return undefined;
        const server = serverOf(i);
        const l = this.deps.capabilities.labelsOf(server, tool);
        if (!isUntrustedSource(l.labels, l.origin)) return undefined;
        // MCP server keys have no colon; `a2a:<name>` is an A2A agent's answer (core/flow.ts).
        return { reader: i.agent, everyValue: (server ?? '').startsWith('a2a:'), field: 'answer' };
      }
      // Resources and prompts are whatever the server holds: untrusted unless the config says the server is trusted.
      case 'server':
        return { reader: i.agent, everyValue: false, field: 'text' };
      case 'agent': {
        if (i.kind !== 'message') return undefined;
        const sender = i.sender ?? i.agent;
        if (i.recipient === undefined || i.recipient === sender) return undefined;
        const audience = this.deps.principals.audience(sender, i.recipient);
        if (audience === 'principal' || audience === 'from_principal') return undefined;
        return { reader: i.recipient, everyValue: true, field: 'content' };
      }
      default:
        return undefined;
    }
  }

  /** Whether `i` brings private data by its tool's labels (the kinds table's `read_of`). */
  private privateRead(i: Interaction): boolean {
    const tool = toolOf(i);
    if (KINDS[i.kind].read_of !== 'tool' || tool === undefined) return false;
    return this.deps.capabilities.labelsOf(serverOf(i), tool).labels.includes('private_source');
  }
}

/** HMAC-SHA256 of provenance's keys under a key derived from the store's flow key, cut to 16 hex digits, prefixed `p`. */
export function provenanceHasher(key: Buffer): (s: string) => string {
  const k = createHmac('sha256', key).update('quadguard provenance v1').digest();
  return (s: string) => `p${createHmac('sha256', k).update(s).digest('hex').slice(0, 16)}`;
}

/** How an untrusted text is read: every value a third party's (kept under `field`), or only those prose gives. */
export interface UntrustedWho {
  everyValue: boolean;
  field: string;
}

/**
 * The keyed hashes an untrusted text leaves, by the field they are kept under (in the order found): the steering values
 * third parties wrote in it, those of its hidden readings, and the tools it asks for (none without an action index:
 * then, as when it holds more than `limit` of any, `overflow`). A pure function of the text under the key, so the
 * worker pool (pool-worker.ts) reads a long text as the loop reads a short one.
 */
export function untrustedHashes(text: string, untrusted: UntrustedWho, index: ActionIndex | undefined, h: (s: string) => string, limit: number): { byField: Array<[string, string[]]>; overflow: boolean } {
  const byField = new Map<string, Set<string>>();
  const add = (field: string, hash: string) => {
    let s = byField.get(field);
    if (!s) byField.set(field, (s = new Set()));
    s.add(hash);
  };
  let overflow = false;
  const take = (values: FoundValue[], suffix = '') => {
    for (const v of values) if (v.thirdParty || untrusted.everyValue) add(`${untrusted.everyValue ? untrusted.field : v.field}${suffix}`, h(valueKey(v.kind, v.normalised)));
  };
  const plain = steeringValues(text, limit);
  overflow ||= plain.overflow;
  take(plain.values);
  // Hidden readings (decoded runs, rot13, text written backwards) are prose by nature: every value is a third party's.
  const hidden = [...unwrapViews(text).slice(1), ...(text.length <= MAX_SHIFTED_READING ? [rot13(text), reversed(text)] : [])];
  for (const r of hidden) {
    const vals = valuesIn(r);
    if (vals.length > limit) overflow = true;
    for (const v of vals.slice(0, limit)) add('text (encoded)', h(valueKey(v.kind, v.normalised)));
  }
  if (index === undefined) overflow = true;
  else {
    const asked = new Set<string>();
    // Field names of structured results (`"reply":`, `role:`) are the service's words, not a request: only values
    // and prose are read for one.
    for (const reading of [text, ...hidden]) {
      for (const r of index.requests(withoutKeys(reading))) {
        const q = `${r.tool.server}__${r.tool.name}`;
        asked.add(`a\0${q}`);
        for (const t of r.links) asked.add(`a\0${q}\0${t}`);
      }
    }
    if (asked.size > limit) overflow = true;
    for (const key of [...asked].slice(0, limit)) add('text (request)', h(key));
  }
  return { byField: [...byField].map(([f, hs]) => [f, [...hs]]), overflow };
}

/**
 * Each argument of a call (every leaf, object keys aside) as the link tokens it carries beyond the tool's own words;
 * leaves that carry none (booleans, the tool's own words, function words) are left out. At most MAX_CALL_LINKS tokens.
 */
function argumentLinks(args: Record<string, unknown> | undefined, own: ReadonlySet<string>): Array<{ argument: string; tokens: string[] }> {
  const out: Array<{ argument: string; tokens: string[] }> = [];
  let budget = MAX_CALL_LINKS;
  for (const leaf of stringLeaves(args ?? {})) {
    if (leaf.field.endsWith('{keys}')) continue;
    const tokens = [...new Set(linkTokens(leaf.text))].filter((t) => !own.has(t));
    if (tokens.length === 0 || tokens.length > budget) continue;
    budget -= tokens.length;
    out.push({ argument: leaf.field.replace(/^\./, ''), tokens });
  }
  return out;
}

/** Whether some argument holds a string or a number (not only booleans, empty strings and object keys). */
function carriesAnything(args: Record<string, unknown> | undefined): boolean {
  return stringLeaves(args ?? {}).some((l) => !l.field.endsWith('{keys}') && l.text.trim() !== '' && l.text !== 'true' && l.text !== 'false');
}

function valueKey(kind: string, normalised: string): string {
  // Numbers, IBANs and wallets are one family (an account written either way); the other kinds stand alone.
  const family = kind === 'iban' || kind === 'number' || kind === 'wallet' ? 'acct' : kind;
  return `v\0${family}\0${normalised}`;
}

/** `gue…01`: enough to recognise a value in the witness, not enough to read it. */
function mask(v: string): string {
  return v.length <= 6 ? `${v.slice(0, 1)}…` : `${v.slice(0, 3)}…${v.slice(-2)}`;
}

function steering(hit: { by: Steering['by']; argument?: string; what: string; source: FlowSource }): Steering {
  const field = hit.source.uri?.split('#').at(-1);
  return {
    by: hit.by,
    what: hit.what,
    ...(hit.argument !== undefined ? { argument: hit.argument } : {}),
    ...(field !== undefined ? { field } : {}),
    source: { ...hit.source, id: hit.source.id.replace(/#[^#]*$/, ''), ...(hit.source.uri ? { uri: hit.source.uri.replace(/#[^#]*$/, '') } : {}) },
  };
}

/** A text without the keys of JSON, YAML or Python-repr fields (`"key":`, `'key':`, `key:` at a line's start). */
export function withoutKeys(text: string): string {
  return text.replace(/["'][\w .-]{1,64}["']\s*:/g, ' ').replace(/^(?<!^\s*?[\n\r\u2028\u2029])\s*[\w-]{1,64}:(?=\s)/gm, ' ');
}
