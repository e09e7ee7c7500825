import { createHmac, randomUUID } from 'node:crypto';
import { contentText, stringLeaves } from '../core/fields.js';
import { a2aAnswerServer, type CapabilityLabel, type FlowFacts, type FlowSource, type LabelOrigin } from '../core/flow.js';
import type { Logger } from '../core/log.js';
import { createFingerprinter, normaliseForFingerprint, type Fingerprinter } from '../core/text/fingerprint.js';
import { heldName } from '../core/text/held-names.js';
import { createValueHasher, isValueHash, MAX_VALUE, outgoingPieces, shortLines } from '../core/text/short-values.js';
import { mailAddressesIn } from '../core/text/steering-values.js';
import { decodeWhole, OUTGOING_READINGS, readingsOf } from '../core/text/readings.js';
import { updateInTurns } from '../core/text/turns.js';
import { KINDS } from '../core/kinds.js';
import { argumentsOf, contentOf, serverOf, toolOf, type Decision, type Interaction } from '../core/types.js';
import { withKey } from '../core/with-key.js';
import { describeSource } from '../detectors/flow.js';
import { originOf, SWEEP_BUDGET, type FlowStore } from '../store/flow.js';
import { nameWords, type CapabilityMap } from './capabilities.js';
import { Principals } from './principals.js';
import { createCredentialHasher, CREDENTIAL_SINKS, CREDENTIAL_URI_PREFIX, credentialArgs, freeTextPieces, type CredentialArg } from './credentials.js';
import { DataFlowOptionsSchema, type DataFlowOptions, type OptionsInput } from './options.js';
import { readDigestKey, readHashes, type ReadHashOptions } from './read-hashes.js';

/**
 * The guard's data-flow stage (docs/data-flow.md), two hooks around the four-part pipeline:
 *
 * - `inspect` (before predicates): labels the interaction's tool by capability and, for an outgoing tool call,
 *   message, prompt request (its arguments) or resource request (its URI), looks up whether its data (every
 *   argument, decoded: URL, base64, hex; fields also joined) carries fingerprints of private data this identity
 *   read. The answer goes on `Interaction.flow` for the `capability` and `data_flow` detectors.
 * - `record` (after an allowed decision is audited): a read of private data (a result of a `private_source`
 *   tool, a resource or prompt read, a message received) leaves its fingerprints under the reading identity,
 *   with the decision's audit id as the source, for `ttl_ms`. Per identity, not per session.
 */

/** Labels whose tool calls are checked for outgoing private data. */
const OUTGOING: ReadonlySet<CapabilityLabel> = new Set(['external_send', 'public_sink', 'network_fetch', 'file_write', 'code_execution']);
/** Characters of outgoing text fingerprinted at most per interaction (argument limits bound it already). */
const MAX_OUTGOING_CHARS = 2 * 1024 * 1024;
/** Where labels are the server's own word or a default guess: never enough to clear a tool for another server's data. */
const UNSURE: ReadonlySet<LabelOrigin> = new Set(['annotations', 'unlabelled']);
/** Labels that make a tool call a sink of data read (file writes are judged by their path, code by its rules). */
const DATA_SINKS: ReadonlySet<CapabilityLabel> = new Set(['external_send', 'public_sink', 'network_fetch']);
/**
 * Argument names that say where a call goes: a recipient, an account, a channel, a user. Their value, read earlier
 * (the IBAN of the bill the user pays, the sender of the mail answered), is the address, not data that leaves;
 * private data written INTO an address (`<value>@attacker.example`) still counts, as does the same value in a body.
 */
const ADDRESS_WORDS = new Set(['to', 'cc', 'bcc', 'recipient', 'recipients', 'receiver', 'receivers', 'payee', 'beneficiary', 'iban', 'account', 'channel', 'user', 'username', 'email', 'emails', 'contact', 'member', 'guest', 'handle', 'phone']);
/** Longest argument value taken for an address. */
const MAX_ADDRESS = 256;

/** Reads remembered as recently stored or refreshed, to skip refreshing them again (oldest forgotten first). */
const RECENT_READS = 4096;
/** A re-read of the same data is stored again only after this long (at most a tenth of the TTL). */
const REFRESH_MS = 60_000;
/** Sweep expired reads at least this often while reads come in. */
const SWEEP_EVERY_MS = 5_000;
/** The numbers of all fields read together as char codes (the fields' other readings are read one by one). */
const CHAR_CODES_ONLY = { ...OUTGOING_READINGS, rows: ['char-codes'] as const, depth: 1 };
/** Normalised characters of what one identity sent through one field kept, to read pieces sent over many calls. */
const TRAIL_CHARS = 2048;
/** Views of one field (the field, its URL parameters, its decodings) followed over calls. */
const TRAIL_VIEWS = 16;
/** Identities whose trails are kept (oldest forgotten first). */
const TRAIL_AGENTS = 1024;

export interface DataFlowDeps {
  store: FlowStore;
  capabilities: CapabilityMap;
  options?: OptionsInput<DataFlowOptions>;
  now?: () => number;
  logger: Logger;
  /** Whom each agent acts for and may share with (config `agents.<name>.principal`, `share_private_with`). */
  principals?: Principals;
  /**
   * The hashes of a private read computed off the event loop (the worker pool, for a long read), or undefined to
   * compute them here; the same list either way (read-hashes.ts).
   */
  readHashesOf?: (text: string, key: Buffer, options: ReadHashOptions) => Promise<string[] | undefined>;
  /** The keyed digest of a private read computed off the event loop (the worker pool, for a long read), or undefined to compute it here; the same digest either way. */
  readDigestOf?: (text: string, key: Buffer, options: ReadHashOptions) => Promise<string | undefined>;
  /**
   * Starts a long private read's digest and hashes off the event loop before the decision (long-texts.ts
   * `readAhead`), for `readDigestOf` and `readHashesOf` to answer once it is allowed.
   */
  readAhead?: (text: string, key: () => Promise<Buffer>, options: ReadHashOptions) => void;
  /** The reading of a send computed off the event loop (the worker pool, for a long send), or undefined to read it here (`readOutgoing`). */
  outgoingOf?: (job: OutgoingJob, key: Buffer, options: ReadHashOptions) => Promise<OutgoingReading | undefined>;
}

export class DataFlowStage {
  readonly options: DataFlowOptions;
  private fingerprinter: Promise<Fingerprinter> | undefined;
  private valueHasher: Promise<(normalised: string) => string> | undefined;
  private credentialHasher: Promise<(normalised: string) => string> | undefined;
  /**
   * Identities that gave a credential through this guard: only their calls and messages are searched for one in
   * free text (an extra lookup). Per process: a credential given through another replica is still followed to
   * sinks as private data, and to another server by its field.
   */
  private readonly credentialAgents = new Set<string>();
  private readonly now: () => number;
  private lastSweep = 0;
  private sweeping = false;
  /** (identity, origin, digest) of reads stored or refreshed recently → when; see `record`. */
  private readonly held = new Map<string, number>();
  private digester: Promise<(text: string) => Promise<string>> | undefined;
  /**
   * Per identity: what it sent, per (destination, field, view), normalised and joined over calls (the last
   * TRAIL_CHARS characters, with when it was last added to). Private data sent in small pieces over many calls is
   * whole again in the trail.
   */
  private readonly trails = new Map<string, Map<string, { text: string; at: number }>>();
  /** (identity, destination) → the views of its send under check, added to the trails if it is allowed. */
  private readonly pendingTrails = new Map<string, Array<[string, string]>>();
  private readonly principals: Principals;

  constructor(private readonly deps: DataFlowDeps) {
    this.options = DataFlowOptionsSchema.parse(deps.options ?? {});
    this.now = deps.now ?? Date.now;
    this.principals = deps.principals ?? new Principals();
  }

  /** Keyed hashes of short distinctive values (`core/text/short-values.ts`), under a key derived from the flow key. */
  private valueHash(): Promise<(normalised: string) => string> {
    this.valueHasher ??= this.deps.store.key().then(createValueHasher);
    this.valueHasher.catch(() => (this.valueHasher = undefined));
    return this.valueHasher;
  }

  private credentialHash(): Promise<(normalised: string) => string> {
    this.credentialHasher ??= this.deps.store.key().then(createCredentialHasher);
    this.credentialHasher.catch(() => (this.credentialHasher = undefined));
    return this.credentialHasher;
  }

  private fp(): Promise<Fingerprinter> {
    this.fingerprinter ??= this.deps.store.key().then((key) => createFingerprinter(key, { k: this.options.k, window: this.options.window }));
    this.fingerprinter.catch(() => (this.fingerprinter = undefined));
    return this.fingerprinter;
  }

  /** The interaction with `flow` set: its tool's labels and, when outgoing, any private data it carries. */
  async inspect(i: Interaction): Promise<Interaction> {
    const tool = toolOf(i);
    const labels = tool !== undefined ? this.deps.capabilities.labelsOf(serverOf(i), tool) : undefined;
    const facts: FlowFacts = { labels: labels?.labels ?? [], ...(labels ? { origin: labels.origin } : {}) };
    const audience = i.kind === 'message' && i.recipient !== undefined ? this.principals.audience(i.sender ?? i.agent, i.recipient) : undefined;
    if (audience !== undefined) facts.audience = audience;
    // A message between an agent and its principal, or to an agent allowed the sender's data, passes nothing on.
    if (this.options.enabled && audience === undefined) {
      // A sink by its tool's labels (a call) only with one of the OUTGOING labels; every other sink always.
      const { sink } = KINDS[i.kind];
      const outgoing = sink === 'none' || (sink === 'labels' && !facts.labels.some((l) => OUTGOING.has(l))) ? [] : payloadTexts(i);
      if (outgoing.some((t) => t.length > 0)) {
        const { leak, cut } = await this.leakIn(i.agent, outgoing, returnsTo(i), destinationOf(i), sink === 'labels' ? addressValues(argumentsOf(i)) : undefined);
        if (leak) facts.leak = leak;
        else if (cut !== undefined) facts.cut = cut;
      } else if (sink === 'labels' && facts.origin !== undefined && UNSURE.has(facts.origin) && !facts.labels.some((l) => DATA_SINKS.has(l))) {
        // A tool that is no sink by its own server's word (its annotations) or by default still receives what it is
        // given: another server's private data reaching it leaves that server's keeping (the red team's read-only,
        // closed-world tool). Data it gave itself may go back to it, and so may names and ids (short values): a lookup
        // of what an earlier result named is not exfiltration; runs of private text are.
        const server = serverOf(i);
        const { leak } = await this.leakIn(i.agent, leaves(argumentsOf(i)), (src) => src.server === server, undefined, undefined, false);
        if (leak) {
          facts.leak = leak;
          facts.labels = [...facts.labels, 'external_send'];
        }
      }
      if (i.kind === 'tool_call' || i.kind === 'message') Object.assign(facts, await this.credentialFacts(i, facts.labels));
    }
    return withKey(i, 'flow', facts);
  }

  /**
   * Credentials in context (credentials.ts): which credential fields of a call are given as credentials, and whether
   * a credential this identity gave before turns up in free text or at another server.
   */
  private async credentialFacts(i: Interaction, labels: readonly CapabilityLabel[]): Promise<Pick<FlowFacts, 'credentials' | 'credentialMisuse'>> {
    const creds: CredentialArg[] = i.kind === 'tool_call' ? credentialArgs(i.arguments, i.credentialKeys) : [];
    const searchFree = this.credentialAgents.has(i.agent);
    if (creds.length === 0 && !searchFree) return {};
    const hash = await this.credentialHash();
    const credFields = new Set(creds.map((c) => c.field));
    const free =
      !searchFree ? [] : i.kind === 'message' ? [contentText(i.content)] : i.kind === 'tool_call' ? stringLeaves(i.arguments ?? {}, 'arguments').filter((l) => !credFields.has(l.field)).map((l) => l.text) : [];
    const freeHashes = new Set(freeTextPieces(free).map(hash));
    const credHashes = creds.map((c) => hash(c.normalised));
    const matches = await this.deps.store.match(i.agent, [...new Set([...credHashes, ...freeHashes])], this.now());
    const inFree = matches.find((m) => m.hashes.some((h) => freeHashes.has(h)));
    if (inFree) return { credentialMisuse: { field: i.kind === 'message' ? 'content' : 'arguments', why: `a credential first given to ${describeSource(inFree.source)} is in free text` } };
    const sink = labels.find((l) => CREDENTIAL_SINKS.has(l));
    const server = serverOf(i);
    const given: string[] = [];
    for (const [n, c] of creds.entries()) {
      const first = matches.filter((m) => m.hashes.includes(credHashes[n]!)).sort((a, b) => a.source.at - b.source.at)[0];
      if (first !== undefined && first.source.server !== server) {
        return { credentialMisuse: { field: c.field, why: `this credential was first given to ${describeSource(first.source)}, not to server ${server ?? '(none)'}` } };
      }
      if (sink === undefined) given.push(c.field);
    }
    return given.length > 0 ? { credentials: given } : {};
  }

  /** After an allowed call that gave credentials as credentials: their first use (server, field), kept per identity. */
  private async recordCredentials(i: Interaction): Promise<void> {
    if (i.kind !== 'tool_call' || !i.flow?.credentials?.length) return;
    const fields = new Set(i.flow.credentials);
    const creds = credentialArgs(i.arguments, i.credentialKeys).filter((c) => fields.has(c.field));
    const hash = await this.credentialHash();
    const valueHash = await this.valueHash();
    const now = this.now();
    const known = new Set((await this.deps.store.match(i.agent, creds.map((c) => hash(c.normalised)), now)).flatMap((m) => m.hashes));
    for (const c of creds) {
      const h = hash(c.normalised);
      if (known.has(h)) continue;
      const source: FlowSource = {
        id: `credential-${h}-${randomUUID()}`,
        kind: i.kind,
        session: i.session,
        at: now,
        ...(i.server !== undefined ? { server: i.server } : {}),
        tool: i.tool,
        uri: `${CREDENTIAL_URI_PREFIX}${c.field}`,
      };
      // The value's short-value hash too: from now on the credential is private data the data-flow rules follow to sinks.
      await this.deps.store.recordRead(i.agent, source, c.normalised.length >= 6 ? [h, valueHash(c.normalised)] : [h], now + this.options.ttl_ms);
    }
    this.credentialAgents.add(i.agent);
  }

  /**
   * `addresses`: where the call goes, read from its addressing arguments (addressValues); a short value that is the
   * whole of one is where the call goes, not data it carries. `shortValues` false: only runs of text count.
   */
  private async leakIn(
    agent: string,
    texts: string[],
    returning?: (source: FlowSource) => boolean,
    destination = '',
    addresses?: CallAddresses,
    shortValues = true,
  ): Promise<{ leak?: FlowFacts['leak']; cut?: string }> {
    const now = this.now();
    const mine = this.trails.get(agent);
    // What this identity sent to this destination before, per field and view (the trails), for the reading to join.
    const trails: Array<[string, string]> = [];
    for (const [key, t] of mine ?? []) if (key.startsWith(`${destination}|`) && now - t.at < this.options.ttl_ms) trails.push([key, t.text]);
    const job: OutgoingJob = { texts, destination, k: this.options.k, shortValues, trails, ...(addresses ? { addresses: [...addresses.forms] } : {}) };
    // A long send is read in the worker pool (the same function), else here.
    const offloaded = this.deps.outgoingOf ? await this.deps.outgoingOf(job, await this.deps.store.key(), this.options) : undefined;
    const reading = offloaded ?? readOutgoing(job, await this.fp(), await this.valueHash());
    // Its views join the trails only once the send is allowed (`record`), so a denied send never makes a later one look like a leak.
    remember(this.pendingTrails, JSON.stringify([agent, destination]), reading.trailViews);
    const cut =
      reading.skipped > 0
        ? `${reading.skipped} characters of the outgoing data's decoded readings were not checked (over the ${MAX_OUTGOING_CHARS}-character budget)`
        : reading.unread !== undefined
          ? `the outgoing data's readings were not all made (${reading.unread})`
          : undefined;
    const none = cut !== undefined ? { cut } : {};
    const hashes = new Set(reading.hashes);
    const fresh = new Set(reading.fresh);
    if (hashes.size === 0) return none;
    const matches = (await this.deps.store.match(agent, [...hashes], this.now())).filter((m) => !returning?.(m.source));
    if (matches.length === 0) return none;
    const matched = new Set(matches.flatMap((m) => m.hashes));
    for (const h of await this.readAddresses(agent, addresses, matched, returning)) matched.delete(h);
    if (matched.size < this.options.min_matches && ![...matched].some(isValueHash)) return none;
    if (![...matched].some((h) => fresh.has(h))) return none;
    const carrying = matches.filter((m) => m.hashes.some((h) => matched.has(h)));
    carrying.sort((a, b) => b.hashes.length - a.hashes.length || b.source.at - a.source.at);
    return { leak: { matched: matched.size, of: hashes.size, source: carrying[0]!.source, others: carrying.length - 1 } };
  }

  /**
   * The hashes of a send that are its addresses after all, because this identity read them whole. An address that a
   * read held as a short value (a payee's IBAN, a wallet) or as a whole word (held-names.ts: the channel posted to,
   * the sender of a mail replied to) is where the call goes, as its short value already is (`readOutgoing`), so the
   * runs of text inside it (its k-grams) are not data it carries either; and the pieces of an e-mail address held so
   * (`CallAddresses.pieces`: the digits of `48213377@x.io`) are part of it. A 31-character IBAN read from a list of
   * transactions and then paid shares a dozen k-grams with that read: the payment was denied about once in nine
   * stores; a reply to the 34-character sender of a private mail, in about one store in four; a post to a
   * 44-character channel read from the list, in nine of ten. Looked up only when a matched hash is inside an address.
   */
  private async readAddresses(agent: string, addresses: CallAddresses | undefined, matched: ReadonlySet<string>, returning?: (source: FlowSource) => boolean): Promise<string[]> {
    if (addresses === undefined) return [];
    const { k } = this.options;
    const fp = await this.fp();
    const valueHash = await this.valueHash();
    const held = (a: string) => [valueHash(a), valueHash(heldName(a))];
    // Each: the hashes that say an address was read whole, and the send's hashes it then takes back from `matched`.
    const inside: Array<[string[], string[]]> = [];
    if ([...matched].some((h) => !isValueHash(h))) {
      for (const a of addresses.forms) {
        if (a.length < k || a.length > MAX_VALUE) continue;
        const grams = fp.everyGram(a);
        if (grams.some((h) => matched.has(h))) inside.push([held(a), grams]);
      }
    }
    for (const [piece, forms] of addresses.pieces) {
      const h = valueHash(piece);
      if (matched.has(h)) inside.push([forms.flatMap(held), [h]]);
    }
    if (inside.length === 0) return [];
    const read = new Set((await this.deps.store.match(agent, [...new Set(inside.flatMap(([values]) => values))], this.now())).filter((m) => !returning?.(m.source)).flatMap((m) => m.hashes));
    return inside.filter(([values]) => values.some((v) => read.has(v))).flatMap(([, taken]) => taken);
  }

  /**
   * A private read's digest and hashes started beside the check (`DataFlowDeps.readAhead`: a long one, in the worker
   * pool): they depend on the text alone, so the answer does not wait for them after the decision. Nothing is stored
   * here; `record` keeps them only for an allowed read of that very text.
   */
  readAhead(i: Interaction): void {
    if (!this.options.enabled || !this.deps.readAhead || !this.privateRead(i)) return;
    this.deps.readAhead(contentText(contentOf(i)), () => this.deps.store.key(), this.options);
  }

  /**
   * After an allowed, audited interaction: keeps the fingerprints of private data it brought to an identity.
   * Throws when they cannot be stored (the caller fails closed).
   */
  async record(i: Interaction, decision: Decision): Promise<void> {
    if (this.options.enabled) this.commitTrail(i, decision);
    if (!this.options.enabled || decision.decision !== 'allow') return;
    await this.recordCredentials(i);
    const read = this.privateRead(i);
    if (!read) return;
    const text = decision.replacement ? contentText(decision.replacement) : contentText(contentOf(i));
    const now = this.now();
    const source: FlowSource = {
      id: decision.auditId ?? `flow-${randomUUID()}`,
      kind: i.kind,
      session: i.session,
      at: now,
      ...(serverOf(i) !== undefined ? { server: serverOf(i)! } : {}),
      ...(toolOf(i) !== undefined ? { tool: toolOf(i)! } : {}),
      ...('uri' in i && i.uri !== undefined ? { uri: i.uri } : {}),
      ...('prompt' in i ? { uri: `prompt:${i.prompt}` } : {}),
      // A received message is named by its sender.
      ...(i.kind === 'message' && i.sender !== undefined ? { uri: `agent:${i.sender}` } : {}),
    };
    const expires = now + this.options.ttl_ms;
    // The same text read again by the same identity from the same origin (an agent re-reading a file, in any
    // session) is held already: its fingerprints are a function of the text, so it is not fingerprinted or stored
    // again. Its one read row is refreshed (newest read's name, new expiry), and only once it has used up more than
    // REFRESH_MS of its TTL: the data then expires at most that much before ttl_ms after the last read.
    const offloadedDigest = this.deps.readDigestOf ? await this.deps.readDigestOf(text, await this.deps.store.key(), this.options) : undefined;
    const digest = offloadedDigest ?? (await (await this.digest())(text));
    const heldKey = JSON.stringify([read.agent, originOf(source), digest]);
    const refreshedAt = this.held.get(heldKey);
    if (refreshedAt !== undefined && now - refreshedAt < Math.min(REFRESH_MS, this.options.ttl_ms / 10)) return this.sweepSometimes(now, 0);
    if (!(await this.deps.store.refresh(read.agent, source, digest, expires, now))) {
      // The text, and its forms a sender could turn it into to hide it, so the outgoing text as it is matches them;
      // short distinctive values and lines, matched exactly (read-hashes.ts). A long read is hashed in the worker pool.
      const offloaded = this.deps.readHashesOf ? await this.deps.readHashesOf(text, await this.deps.store.key(), this.options) : undefined;
      const hashes = offloaded ?? readHashes(text, { fp: await this.fp(), valueHash: await this.valueHash() }, this.options.max_per_read);
      // A text with nothing to keep (too short) is remembered too: its re-reads need no store lookup either.
      if (hashes.length > 0) await this.deps.store.recordRead(read.agent, source, hashes, expires, digest);
      this.sweepSometimes(now, hashes.length);
    } else this.sweepSometimes(now, 0);
    remember(this.held, heldKey, now);
  }

  /**
   * Keyed digest of a read's whole text, naming its content in the store (read-hashes.ts `readDigestKey`: equal
   * digests mean equal fingerprints), hashed here: `readDigest`'s answer, a slice per turn for a long text.
   */
  private digest(): Promise<(text: string) => Promise<string>> {
    this.digester ??= this.deps.store.key().then((key) => {
      const k = readDigestKey(key, this.options);
      // A long text is hashed a slice per turn of the event loop: other sessions are answered in between.
      return async (text: string) => `r:${(await updateInTurns(createHmac('sha256', k), text)).digest('base64')}`;
    });
    this.digester.catch(() => (this.digester = undefined));
    return this.digester;
  }

  /**
   * Expired reads swept as reads go: after a new read, at least as many fingerprints as it stored (so sweeping keeps
   * up with recording); otherwise a bounded batch every SWEEP_EVERY_MS. In the background, one at a time: the answer
   * does not wait for it, and a failure is logged (the next sweep takes it up).
   */
  private sweepSometimes(now: number, stored: number): void {
    if (this.sweeping || (stored === 0 && now - this.lastSweep < SWEEP_EVERY_MS)) return;
    this.lastSweep = now;
    this.sweeping = true;
    this.deps.store
      .sweep(now, Math.max(SWEEP_BUDGET, stored))
      .catch((err: unknown) => this.deps.logger.warn({ err }, 'sweeping expired data-flow fingerprints failed'))
      .finally(() => (this.sweeping = false));
  }

  /** After a decision on an outgoing interaction: an allowed send's views join its identity's trails. */
  private commitTrail(i: Interaction, decision: Decision): void {
    const key = JSON.stringify([i.agent, destinationOf(i)]);
    const pending = this.pendingTrails.get(key);
    if (pending === undefined) return;
    this.pendingTrails.delete(key);
    if (decision.decision !== 'allow') return;
    const now = this.now();
    const mine = this.trails.get(i.agent) ?? new Map<string, { text: string; at: number }>();
    remember(this.trails, i.agent, mine);
    if (this.trails.size > TRAIL_AGENTS) this.trails.delete(this.trails.keys().next().value!);
    for (const [k, v] of pending) {
      if (v.length === 0) continue;
      const before = mine.get(k);
      const prev = before !== undefined && now - before.at < this.options.ttl_ms ? before.text : '';
      remember(mine, k, { text: (prev + v).slice(-TRAIL_CHARS), at: now });
    }
  }

  /** Who receives private data through `i`, if anyone (the kinds table's `read_of`). */
  private privateRead(i: Interaction): { agent: string } | undefined {
    if (contentOf(i) === undefined) return undefined;
    switch (KINDS[i.kind].read_of) {
      case 'tool': {
        const tool = toolOf(i);
        if (tool === undefined) return undefined;
        const { labels } = this.deps.capabilities.labelsOf(serverOf(i), tool);
        return labels.includes('private_source') && !labels.includes('public_source') ? { agent: i.agent } : undefined;
      }
      case 'server':
        return { agent: i.agent };
      case 'agent': {
        // A message is private data of the agent that receives it.
        const recipient = recipientOf(i);
        return recipient !== undefined ? { agent: recipient } : undefined;
      }
      case 'none':
        return undefined;
    }
  }

  /**
   * Puts the flow on the decision: `detail.flow` (source read and sink), and on a denial a sentence naming the
   * read the data came from, in the rationale and the remediation.
   */
  annotate(i: Interaction, decision: Decision, flowPredicates: ReadonlySet<string>): void {
    const leak = i.flow?.leak;
    if (!leak) return;
    decision.detail.flow = {
      source: leak.source,
      sink: {
        kind: i.kind,
        ...(serverOf(i) !== undefined ? { server: serverOf(i)! } : {}),
        ...(toolOf(i) !== undefined ? { tool: toolOf(i)! } : {}),
        ...(i.kind === 'message' && i.recipient !== undefined ? { recipient: i.recipient } : {}),
        labels: i.flow?.labels ?? [],
      },
      matched: leak.matched,
      others: leak.others,
    };
    const byFlow = decision.witness.some((w) => decision.rules.includes(w.rule) && Object.entries(w.predicates).some(([p, v]) => v === 'true' && flowPredicates.has(p)));
    if (decision.decision !== 'deny' || !byFlow) return;
    const from = `The data came from ${describeSource(leak.source)}${leak.source.session !== i.session ? ' in another session' : ''}.`;
    decision.rationale = `${decision.rationale} ${from}`;
    decision.remediation = `${from} ${decision.remediation ?? 'Do not send data read from that source to this destination; ask the user first.'}`;
  }
}

/** What `leakIn` reads of a send: its texts, where they go, and what this identity sent there before (`trails`). */
export interface OutgoingJob {
  texts: string[];
  destination: string;
  k: number;
  /** Short distinctive values and lines count too (false: only runs of text). */
  shortValues: boolean;
  /** The call's addressing values (`addressValues`): where it goes, not data it carries. */
  addresses?: string[];
  /** The trails of this identity at this destination (key → the text sent before), unexpired. */
  trails: Array<[string, string]>;
}

/** What a send's texts give its lookup: the hashes, those this send adds itself (`fresh`), what was not read. */
export interface OutgoingReading {
  hashes: string[];
  fresh: string[];
  skipped: number;
  unread?: string;
  /** Each field's views under their trail keys, cut to what a trail keeps (`commitTrail`: its last TRAIL_CHARS). */
  trailViews: Array<[string, string]>;
}

/**
 * The part of `leakIn` that costs in proportion to a send's length: its readings (decoded, joined), fingerprinted
 * within MAX_OUTGOING_CHARS, joined to the trails, and its short values hashed. A pure function of the job under the
 * flow key, so the worker pool (pool-worker.ts) reads a long send as the loop reads a short one.
 */
export function readOutgoing(job: OutgoingJob, fp: Fingerprinter, valueHash: (normalised: string) => string): OutgoingReading {
  const { texts, destination } = job;
  const hashes = new Set<string>();
  let budget = MAX_OUTGOING_CHARS;
  let skipped = 0;
  let unread: string | undefined;
  // A reading that normalises as one already taken adds no fingerprint (a URL-decoded '+' is a space, dropped).
  const taken = new Set<string>();
  const add = (normalised: string) => {
    if (normalised.length < job.k || taken.has(normalised)) return;
    // Over the budget, a reading inside one already fingerprinted (a decoded piece of a decoded field) is read.
    if (normalised.length > budget && [...taken].some((t) => t.includes(normalised))) return;
    taken.add(normalised);
    const s = budget <= 0 ? '' : normalised.slice(0, budget);
    budget -= s.length;
    skipped += normalised.length - s.length;
    if (s.length > 0) fp.addNormalised(s, hashes);
  };
  // One normalisation per distinct view: a field's first views are its trail's too, and a field with nothing to
  // decode is its own whole decoding.
  const normalisedViews = new Map<string, string>();
  const normalised = (v: string): string => {
    let n = normalisedViews.get(v);
    if (n === undefined) normalisedViews.set(v, (n = normaliseForFingerprint(v)));
    return n;
  };
  const read = (t: string): string[] => {
    const r = readingsOf(t, OUTGOING_READINGS);
    if (r.unread !== undefined) unread ??= r.unread;
    return r.views;
  };
  // The fields as they are, joined, come first (a run shared within one field is also within the join, so nothing
  // is lost, and data split across fields is found too); then the fields decoded one by one and joined; then each
  // field's decoded readings, and the joined text's own decodings (encoded, then split). In this order one field's
  // readings cannot use up the budget before another field's text is read, and whatever the budget leaves unread
  // is reported (`cut`): a sink then fails closed.
  const raw: string[] = [];
  const decoded: string[] = [];
  const rawViews: string[] = [];
  const views: string[] = [];
  const trailViews: Array<[string, string]> = [];
  texts.forEach((t, field) => {
    if (t.length === 0) return;
    const unwrapped = read(t);
    rawViews.push(...unwrapped);
    raw.push(normalised(unwrapped[0]!));
    const whole = decodeWhole(t);
    if (whole !== t) rawViews.push(whole);
    decoded.push(normalised(whole));
    for (const v of unwrapped.slice(1)) views.push(normalised(v));
    unwrapped.slice(0, TRAIL_VIEWS).forEach((v, n) => trailViews.push([`${destination}|${field}|${n}`, normalised(v)]));
  });
  const joinedRaw = raw.join('');
  add(joinedRaw);
  const joinedDecoded = decoded.join('');
  if (joinedDecoded !== joinedRaw) add(joinedDecoded);
  for (const v of views) add(v);
  if (raw.length > 1) {
    for (const v of read(texts.join('')).slice(1)) add(normalised(v));
    // Numbers sent one per field (an array of char codes) are read together.
    for (const v of readingsOf(texts.join(' '), CHAR_CODES_ONLY).views.slice(1)) add(normalised(v));
  }
  // Pieces sent over many calls: each field's views joined to what this identity sent there before.
  // The trail's fingerprints count only with one this call adds: what was sent there before (allowed then) is
  // not sent again by this call, so a match made of it alone is no leak.
  const fresh = new Set(hashes);
  const before = new Map(job.trails);
  for (const [key, v] of trailViews) {
    const prev = before.get(key);
    if (v.length === 0 || prev === undefined) continue;
    const joined = prev + v;
    if (joined.length > budget) continue;
    const prior = new Set<string>();
    fp.addNormalised(prev, prior);
    const all = new Set<string>();
    fp.addNormalised(joined, all);
    budget -= joined.length;
    for (const h of all) {
      hashes.add(h);
      if (!prior.has(h)) fresh.add(h);
    }
  }
  // Short private values: every piece that could be one, looked up exactly; one match is enough.
  if (job.shortValues) {
    const addresses = job.addresses ? new Set(job.addresses) : undefined;
    const take = (value: string) => {
      const h = valueHash(value);
      hashes.add(h);
      fresh.add(h);
    };
    for (const p of outgoingPieces(rawViews)) if (!addresses?.has(p)) take(p);
    for (const v of rawViews) for (const l of shortLines(v)) if (!addresses?.has(l)) take(l);
  }
  return {
    hashes: [...hashes],
    fresh: [...fresh],
    skipped,
    ...(unread !== undefined ? { unread } : {}),
    trailViews: trailViews.map(([key, v]): [string, string] => [key, v.slice(-TRAIL_CHARS)]),
  };
}

/** Sets `key` as the newest entry of `map`, forgetting the oldest beyond RECENT_READS. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > RECENT_READS) map.delete(map.keys().next().value!);
}

/**
 * Reads whose data goes back where it came from, so passing it on leaks nothing: a message (or an A2A agent's answer)
 * quoted back to the agent that sent it, an elicitation answer, a sampling reply, a prompt's arguments or a resource URI holding what the same
 * server gave (its tools, resources or prompts). Not a tool call's: a sink by its labels passes the data on.
 */
function returnsTo(i: Interaction): ((source: FlowSource) => boolean) | undefined {
  const { sink, direction } = KINDS[i.kind];
  if (sink === 'none' || sink === 'labels') return undefined;
  const recipient = recipientOf(i);
  if (direction === 'between_agents' && recipient !== undefined) {
    const back = `agent:${recipient}`;
    const answers = a2aAnswerServer(recipient);
    // What the agent said (a message it sent, or its answer over A2A) quoted back to it.
    return (s) => (s.kind === 'message' && s.uri === back) || s.server === answers;
  }
  const server = serverOf(i);
  if (direction === 'to_server' && server !== undefined) return (s) => s.server === server;
  return undefined;
}

/** The texts of an interaction's data (the kinds table's `payload`): its content, its arguments' leaves, or its URI. */
function payloadTexts(i: Interaction): string[] {
  switch (KINDS[i.kind].payload) {
    case 'content':
      return [contentText(contentOf(i))];
    case 'arguments':
      return leaves(argumentsOf(i));
    case 'uri':
      return 'uri' in i && i.uri !== undefined ? [i.uri] : [];
  }
}

/** The recipient of a message. */
function recipientOf(i: Interaction): string | undefined {
  return 'recipient' in i ? i.recipient : undefined;
}

/**
 * Every string leaf of tool-call arguments (or an elicitation answer's fields) and their keys: the keys'
 * field (`stringLeaves`) goes first and ends with a line break, so that the values are joined to one another as
 * before (data split across fields, an encoded run cut in two) and no key is glued to a value's run.
 */
function leaves(args: Record<string, unknown> | undefined): string[] {
  if (args === undefined) return [];
  const all = stringLeaves(args);
  const last = all.at(-1);
  if (last === undefined || !last.field.endsWith('{keys}')) return all.map((l) => l.text);
  return [`${last.text}\n`, ...all.slice(0, -1).map((l) => l.text)];
}

/** Where an outgoing interaction sends its data, for the trails of pieces sent over many calls. */
function destinationOf(i: Interaction): string {
  return `${serverOf(i) ?? ''}/${toolOf(i) ?? i.kind}`;
}

/**
 * Where a call goes, read from its addressing arguments (ADDRESS_WORDS in the name: `to`, `recipient`,
 * `to_account_id`, `channel`, `user_email`).
 */
export interface CallAddresses {
  /**
   * The addresses, normalised: each addressing value whole; in an e-mail address's value, the addresses it holds
   * (`Bob <bob@acme.example>`); in any other, the pieces that hold at least 60% of it (an IBAN written in groups).
   */
  forms: Set<string>;
  /**
   * The other pieces of an e-mail address's value (its local part: `48213377` of `48213377@x.io`), each with the
   * forms of its value. Such a piece is data unless this identity read one of those forms whole: a reply to an
   * address read whole leaks none of it, while private digits written into an address at a domain of the
   * sender's choosing leave with it.
   */
  pieces: Map<string, string[]>;
}

/** The addresses of a call's arguments (`CallAddresses`), less any that also appear in one of its other arguments. */
export function addressValues(args: Record<string, unknown> | undefined): CallAddresses {
  const forms = new Set<string>();
  const pieces = new Map<string, string[]>();
  if (args === undefined) return { forms, pieces };
  const other: string[] = [];
  for (const leaf of stringLeaves(args, 'arguments')) {
    if (leaf.field.endsWith('{keys}')) continue;
    const key = leaf.field.split('.').findLast((part) => !/^\d+$/.test(part)) ?? '';
    if (leaf.text.length <= MAX_ADDRESS && nameWords(key).some((w) => ADDRESS_WORDS.has(w))) {
      const whole = normaliseForFingerprint(leaf.text);
      const mail = mailAddressesIn(leaf.text).map(normaliseForFingerprint);
      const own = [whole, ...mail];
      for (const f of own) forms.add(f);
      for (const p of outgoingPieces([leaf.text])) {
        if (mail.length === 0 && p.length * 10 >= whole.length * 6) forms.add(p);
        else if (mail.length > 0 && !own.includes(p)) pieces.set(p, [...(pieces.get(p) ?? []), ...own]);
      }
    } else other.push(normaliseForFingerprint(leaf.text));
  }
  const rest = other.join('\n');
  for (const a of forms) if (a.length === 0 || rest.includes(a)) forms.delete(a);
  for (const p of pieces.keys()) if (forms.has(p) || rest.includes(p)) pieces.delete(p);
  return { forms, pieces };
}
