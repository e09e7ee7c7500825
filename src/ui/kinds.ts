import { INTERACTION_KINDS, KINDS, type InteractionKind } from '../core/kinds.js';
import { InteractionSchema } from '../core/types.js';

/** A row of the kinds table as the live view's page uses it (src/ui/client/types.ts `KindView`). */
export interface KindView {
  role: string;
  label: string;
  answers?: InteractionKind;
  payload: 'arguments' | 'content';
}

/**
 * The kinds table for the page, derived from `core/kinds.ts` and the interaction schemas, so the page copies
 * neither: a result answers the action of the same MCP method; what was sent or returned is in `arguments` when the
 * kind's schema has that field (tool calls, prompt requests, elicitation answers), in `content` otherwise.
 */
export function kindsView(): Record<InteractionKind, KindView> {
  const out = {} as Record<InteractionKind, KindView>;
  for (const kind of INTERACTION_KINDS) {
    const row = KINDS[kind];
    const answers = row.role === 'result' ? INTERACTION_KINDS.find((k) => KINDS[k].role === 'action' && KINDS[k].method === row.method) : undefined;
    const schema = InteractionSchema.options.find((o) => o.shape.kind.value === kind);
    out[kind] = { role: row.role, label: row.label, ...(answers ? { answers } : {}), payload: schema && 'arguments' in schema.shape ? 'arguments' : 'content' };
  }
  return out;
}
