import type { z } from 'zod';
import { contentText } from '../core/fields.js';
import { errorMessage } from '../core/errors.js';
import { silentLogger, type Logger } from '../core/log.js';
import type { CompiledBook } from '../policy/compiled.js';
import type { PredicateIndex } from '../retrieval/predicate-index.js';
import { auditEntryFor } from '../store/audit-schema.js';
import type { Store } from '../store/db.js';
import type { GuardStore } from '../store/engine.js';
import { sqliteOf, toGuardStore } from '../store/sqlite-engine.js';
import { resolveHold } from './approvals.js';
import { redactContent } from './redact.js';
import { addUsage, budgetSignal, expandLowConfidence, tauForLevel, type GuardModelHooks } from './model.js';
import { referee, type SoftDenialReviewer } from './referee.js';
import { createTracker, type SemanticEvaluator } from './tracker.js';
import { makeDecision, type Decision, type Guard, type Interaction, type Truth } from '../core/types.js';
import { createVerifier } from './verifier.js';
import { ThreatWatcher } from './watcher.js';
import { PipelineOptionsSchema, type PipelineOptions } from './options.js';

/**
 * The four-part guard (QuadSentinel Algorithm 1) on one interaction:
 *   quarantine gate → tracker (C = TopK ∪ MustCheck, Γ_t) → verifier (violated rules, witnesses)
 *   → watcher (τ, level, burst, quarantine) → referee (decision, rationale) → audit row.
 * The watcher runs after the verifier because its risk is the violations' severity; the tracker's budget uses
 * the level from before this interaction. One catch site turns any unexpected failure into a denial.
 */

export interface PipelineDeps {
  book: CompiledBook;
  index: PredicateIndex;
  /** Either engine (src/store/engine.ts); a synchronous SQLite `Store` is wrapped. */
  store: GuardStore | Store;
  logger?: Logger;
  options?: z.input<typeof PipelineOptionsSchema>;
  /** Model evaluation of semantic predicates (absent: they stay unknown). */
  semantic?: SemanticEvaluator;
  /** Model review of soft denials (absent: the deterministic referee decides alone). */
  reviewer?: SoftDenialReviewer;
  /** All model hooks (src/guard/model.ts): semantic, state expansion, review, threat complement, observations. */
  model?: GuardModelHooks;
  /** Clock, for tests of the burst window. */
  now?: () => number;
}

/** The guard pipeline; `check` never throws and never allows on its own failure. */
export class GuardPipeline implements Guard {
  readonly book: CompiledBook;
  readonly store: GuardStore;
  readonly watcher: ThreatWatcher;
  private readonly options: PipelineOptions;
  private readonly tracker: ReturnType<typeof createTracker>;
  private readonly verifier: ReturnType<typeof createVerifier>;
  private readonly log: Logger;
  private readonly reviewer: SoftDenialReviewer | undefined;
  private readonly model: GuardModelHooks | undefined;
  private readonly now: () => number;
  private readonly sticky = new Map<string, Map<string, Truth>>();
  private readonly policy: Decision['policy'];
  /** Predicates with an injection detector: their score is the watcher's injection evidence. */
  private readonly injectionPredicates: ReadonlySet<string>;

  constructor(deps: PipelineDeps) {
    this.options = PipelineOptionsSchema.parse(deps.options ?? {});
    this.book = deps.book;
    this.store = toGuardStore(deps.store);
    this.log = (deps.logger ?? silentLogger()).child({ mod: 'guard' });
    this.tracker = createTracker(deps.book, deps.index, this.options.tracker, deps.semantic ?? deps.model?.semantic);
    this.verifier = createVerifier(deps.book);
    this.watcher = new ThreatWatcher(this.options.watcher);
    this.reviewer = deps.reviewer ?? deps.model?.reviewer;
    this.model = deps.model;
    this.now = deps.now ?? Date.now;
    this.policy = { name: deps.book.book.name, version: deps.book.book.version, hash: deps.book.hash };
    this.injectionPredicates = new Set(deps.book.predicates.filter((p) => p.def.detectors.some((d) => d.type === 'injection')).map((p) => p.name));
  }

  async check(i: Interaction, signal?: AbortSignal): Promise<Decision> {
    const started = performance.now();
    let decision: Decision;
    try {
      decision = await this.decide(i, signal);
    } catch (err) {
      this.log.error({ err, kind: i.kind, agent: i.agent }, 'guard pipeline failed; denying (fail closed)');
      decision = makeDecision({
        decision: 'deny',
        rationale: `Denied because the guard could not evaluate this interaction (${errorMessage(err).slice(0, 200)}). The guard fails closed; retry, or ask the operator to check the QuadGuard logs.`,
        source: 'error',
      });
    }
    try {
      this.model?.observe(i, decision);
    } catch (err) {
      this.log.warn({ err }, 'recording the observation failed');
    }
    decision.policy = this.policy;
    decision.elapsedMs = performance.now() - started;
    if (this.options.audit) {
      try {
        decision.auditId = (await this.store.audit.append(auditEntryFor(i, decision))).auditId;
      } catch (err) {
        // An unrecorded allow is not acceptable: the record is part of the product.
        this.log.error({ err }, 'audit append failed');
        if (decision.decision === 'allow') {
          return makeDecision({ decision: 'deny', rationale: 'Denied because the decision could not be recorded in the audit log (fail closed).', source: 'error', policy: this.policy });
        }
      }
    }
    return decision;
  }

  /**
   * Records a decision made outside the pipeline (a refusal by the proxy: unknown or hidden tool, tool filter,
   * limits, spoofed sender) in the same audit chain, stamped with this policy; sets its `auditId`. Throws when
   * the store cannot write (the caller denies anyway). The proxy calls this synchronously: with the SQLite engine
   * the row is written (and the id known) before the refusal is answered; with PostgreSQL the append is started
   * here and completes after the answer, and the refusal carries no `auditId` (a failed write is logged).
   */
  record(i: Interaction, decision: Decision): void {
    decision.policy ??= this.policy;
    const entry = auditEntryFor(i, decision);
    const sync = sqliteOf(this.store);
    if (sync) {
      decision.auditId = sync.audit.append(entry).auditId;
      return;
    }
    void this.store.audit.append(entry).catch((err: unknown) => this.log.error({ err, kind: i.kind, agent: i.agent }, 'recording a refusal failed'));
  }

  /** Where Γ of this interaction is kept: its session, or (option sticky_scope) its agent identity. */
  private stickyKey(i: Interaction): string {
    const scope = this.options.sticky_scope === 'auto' ? (this.store.shared ? 'agent' : 'session') : this.options.sticky_scope;
    return scope === 'agent' ? `agent:${i.agent}` : i.session;
  }

  /**
   * Γ of a session. A store of this process alone (SQLite) is read once per session and kept in memory; a shared
   * store (PostgreSQL: other replicas serve the same session) is read on every interaction, so a fact learnt
   * on one replica decides the next interaction on any other.
   */
  private async stickyOf(session: string): Promise<Map<string, Truth>> {
    if (this.store.shared) return this.store.state.getSticky(session);
    let s = this.sticky.get(session);
    if (!s) {
      if (this.sticky.size >= this.options.session_cache) this.sticky.clear();
      s = await this.store.state.getSticky(session);
      this.sticky.set(session, s);
    }
    return s;
  }

  private async decide(i: Interaction, signal?: AbortSignal): Promise<Decision> {
    const state = this.store.state;
    const stickyKey = this.stickyKey(i);
    // Two reads at once: with PostgreSQL they are two round trips on two connections, not one after the other.
    const [before, sticky] = await Promise.all([state.getThreat(i.agent), this.stickyOf(stickyKey)]);
    if (before.quarantined) {
      return makeDecision({
        decision: 'deny',
        rationale: `Agent "${i.agent}" is quarantined by QuadGuard${before.reason ? ` (${before.reason})` : ''}; every interaction is denied until an operator releases it with \`quadguard agents release ${i.agent}\`.`,
        source: 'quarantine',
        threatLevel: 4,
      });
    }

    // Every model call of this interaction shares one deadline (guard.model.budget_ms) and the caller's signal.
    const modelSignal = this.model ? budgetSignal(signal, this.model.options.budget_ms) : signal;
    let track = await this.tracker(i, before.level, sticky, modelSignal);
    let outcomes = this.verifier(i.kind, track);
    const usages: Array<Record<string, number> | undefined> = [track.usage];
    const expansion = this.model
      ? await expandLowConfidence(this.model, { book: this.book, interaction: i, track, outcomes, sticky, ...(modelSignal ? { signal: modelSignal } : {}) })
      : undefined;
    if (expansion) {
      track = expansion.track;
      outcomes = this.verifier(i.kind, track);
      usages.push(expansion.usage);
    }

    let injectionScore = 0;
    for (const [name, v] of track.values) {
      if (v.value === 'true' && this.injectionPredicates.has(name)) injectionScore = Math.max(injectionScore, v.score ?? 1);
    }
    // A call held for a person's approval (effect: approve) is a request, not evidence of an attack.
    const violations = outcomes
      .filter((o) => o.status === 'violated' && !(o.def.effect === 'approve' && !o.def.hard))
      .map((o) => o.def.severity);
    let update = { tau: before.tau, level: before.level, burst: false, rate: 0 };
    let after = await state.updateThreat(i.agent, (current) => {
      const u = this.watcher.update(i.agent, current.tau, { violations, injectionScore, now: this.now() });
      update = u;
      return { tau: u.tau, level: u.level };
    }, before);

    // Threat watcher complement: a model ±1 step, only when there is evidence (violations or injection).
    let modelThreat: { delta: number; reason: string } | undefined;
    if (this.model?.threat && (violations.length > 0 || injectionScore > 0)) {
      const t = await this.model.threat({ interaction: i, level: after.level, violations: outcomes.filter((o) => o.status === 'violated'), ...(modelSignal ? { signal: modelSignal } : {}) });
      usages.push(t.usage);
      modelThreat = { delta: t.delta, reason: t.reason };
      if (t.delta !== 0) {
        const level = Math.min(4, Math.max(0, after.level + t.delta));
        after = await state.updateThreat(i.agent, () => ({ tau: tauForLevel(level, this.watcher.options.level_bounds), level }));
      }
    }

    const detail: Record<string, unknown> = {
      candidates: track.candidates.length,
      threat: { tau: Number(after.tau.toFixed(4)), level: after.level, burst: update.burst, rate: update.rate },
    };
    const llm = addUsage(...usages);
    if (llm) detail.llm = llm;
    if (expansion) detail.expanded = expansion.predicates;
    if (modelThreat) detail.modelThreat = modelThreat;

    if (after.level >= 4 && this.watcher.options.quarantine) {
      // Only rules actually violated are named: an unknown (flagged) outcome is not evidence against the agent.
      const violated = outcomes.filter((o) => o.status === 'violated');
      const reason = update.burst
        ? `request burst: ${update.rate} requests in ${this.watcher.options.burst_window_ms / 1000} s`
        : `threat level 4 after violations of ${violated.map((o) => o.id).join(', ') || 'the policy'}`;
      await state.quarantine(i.agent, reason);
      this.log.warn({ agent: i.agent, reason }, 'agent quarantined');
      return makeDecision({
        decision: 'deny',
        rationale: `Agent "${i.agent}" has been quarantined by QuadGuard (${reason}); every interaction is denied until an operator releases it with \`quadguard agents release ${i.agent}\`.`,
        rules: violated.map((o) => o.id),
        witness: violated.map((o) => o.witness),
        source: 'quarantine',
        threatLevel: 4,
        detail,
      });
    }

    const verdict = await referee({
      kind: i.kind,
      outcomes,
      threatLevel: after.level,
      denyAtRank: this.options.deny_at_rank,
      ...(this.reviewer ? { reviewer: this.reviewer } : {}),
      ...(modelSignal ? { signal: modelSignal } : {}),
      interaction: i,
    });
    let decision = verdict.decision;
    const reviewUsage = decision.detail.llm as Record<string, number> | undefined;
    Object.assign(decision.detail, detail);
    const total = addUsage(...usages, reviewUsage);
    if (total) decision.detail.llm = total;
    // Held for approval: a matching approved approval lets it through once; otherwise it waits under an id.
    if (verdict.hold.length > 0) {
      decision = await resolveHold(this.store, i, decision, { ttlMs: this.options.approval_ttl_ms, now: this.now() });
    }

    if (decision.decision === 'allow' && verdict.redact.length > 0) {
      const replacement = this.redaction(i, verdict.redact.map((o) => o.witness.predicates), track.values);
      if (replacement === undefined) {
        return makeDecision({
          ...decision,
          decision: 'deny',
          rationale: `Denied: ${verdict.redact.map((o) => o.id).join(', ')} asks for redaction, but the matched text could not be located, so the result is withheld (fail closed).`,
          rules: verdict.redact.map((o) => o.id),
        });
      }
      decision.replacement = replacement;
    }

    // Sticky facts are committed only for interactions that happen: a denied read did not read anything.
    if (decision.decision === 'allow' && track.newlySticky.length > 0) {
      for (const name of track.newlySticky) sticky.set(name, 'true');
      await state.setStickyMany(stickyKey, track.newlySticky.map((n) => [n, 'true'] as [string, Truth]));
    }
    return decision;
  }

  private redaction(
    i: Interaction,
    witnesses: Array<Record<string, Truth>>,
    values: Map<string, { spans?: Array<{ field: string; start: number; end: number }> | undefined }>,
  ) {
    if (i.content === undefined || typeof i.content === 'string') return undefined;
    const text = contentText(i.content);
    const found: string[] = [];
    for (const w of witnesses) {
      for (const [name, v] of Object.entries(w)) {
        if (v !== 'true') continue;
        for (const s of values.get(name)?.spans ?? []) if (s.field === 'content') found.push(text.slice(s.start, s.end));
      }
    }
    if (found.length === 0) return undefined;
    return redactContent(i.content, found, 'sensitive data');
  }
}
