import { contentText } from '../../core/fields.js';
import { makeDecision, type Interaction, type Truth } from '../../core/types.js';
import type { PredicateValue } from '../../policy/evaluate.js';
import { redactContent } from '../redact.js';
import { need, type Stage } from './context.js';

/**
 * Rules with `effect: redact` on an allowed result: the spans the witness predicates matched in the content are
 * masked, and the client sees the masked content. When the spans cannot be located, the result is withheld
 * (fail closed).
 */
export const redaction: Stage = {
  name: 'redaction',
  run(ctx) {
    const decision = need(ctx.decision, 'the decision');
    const redact = need(ctx.verdict, 'the verdict').redact;
    if (decision.decision !== 'allow' || redact.length === 0) return;
    const replacement = redactedContent(ctx.interaction, redact.map((o) => o.witness.predicates), need(ctx.track, 'the track').values);
    if (replacement === undefined) {
      ctx.decision = makeDecision({
        ...decision,
        decision: 'deny',
        rationale: `Denied: ${redact.map((o) => o.id).join(', ')} asks for redaction, but the matched text could not be located, so the result is withheld (fail closed).`,
        rules: redact.map((o) => o.id),
      });
      ctx.final = true;
      return;
    }
    ctx.decision = { ...decision, replacement };
  },
};

/** The content with the text of the witnesses' true predicates masked, or undefined when none is found. */
export function redactedContent(i: Interaction, witnesses: Array<Record<string, Truth>>, values: ReadonlyMap<string, Pick<PredicateValue, 'spans'>>) {
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
