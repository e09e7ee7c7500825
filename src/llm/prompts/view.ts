import { contentText } from '../../core/fields.js';
import { argumentsOf, contentOf, type Interaction } from '../../core/types.js';

/**
 * What a guard prompt shows of an interaction: the fields a model needs, under fixed keys. The result is
 * untrusted data and goes through `dataMessage`'s untrusted side; binary content is reduced to its text.
 */
export function interactionView(i: Interaction): Record<string, unknown> {
  const view: Record<string, unknown> = { kind: i.kind, agent: i.agent };
  // Each kind has exactly its fields (core/types.ts); the view copies the ones present, under the same names.
  const fields = i as Partial<Record<'server' | 'tool' | 'uri' | 'prompt' | 'sender' | 'recipient', string>>;
  for (const k of ['server', 'tool', 'uri', 'prompt', 'sender', 'recipient'] as const) if (fields[k] !== undefined) view[k] = fields[k];
  const args = argumentsOf(i);
  if (args !== undefined) view.arguments = args;
  const content = contentOf(i);
  if (content !== undefined) view.content = contentText(content);
  if (i.profile && Object.keys(i.profile).length > 0) view.profile = i.profile;
  return view;
}
