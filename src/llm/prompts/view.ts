import { contentText } from '../../core/fields.js';
import type { Interaction } from '../../core/types.js';

/**
 * What a guard prompt shows of an interaction: the fields a model needs, under fixed keys. The result is
 * untrusted data and goes through `dataMessage`'s untrusted side; binary content is reduced to its text.
 */
export function interactionView(i: Interaction): Record<string, unknown> {
  const view: Record<string, unknown> = { kind: i.kind, agent: i.agent };
  if (i.server !== undefined) view.server = i.server;
  if (i.tool !== undefined) view.tool = i.tool;
  if (i.uri !== undefined) view.uri = i.uri;
  if (i.phase !== undefined) view.phase = i.phase;
  if (i.sender !== undefined) view.sender = i.sender;
  if (i.recipient !== undefined) view.recipient = i.recipient;
  if (i.arguments !== undefined) view.arguments = i.arguments;
  if (i.content !== undefined) view.content = contentText(i.content);
  if (i.profile && Object.keys(i.profile).length > 0) view.profile = i.profile;
  return view;
}
