import { contentText, qualifiedTool, stringLeaves } from '../core/fields.js';
import type { Interaction } from '../core/types.js';

/** How much of an interaction the top-k retrieval embeds: enough to name the topic, bounded so cost stays flat. */
export const RETRIEVAL_TEXT_LIMIT = 600;

/**
 * The text the state tracker embeds to find relevant predicates: kind, tool, argument names and values, and
 * the head of the content. Bounded: a 5 MB result costs the same as a short one.
 */
export function retrievalText(i: Interaction, limit = RETRIEVAL_TEXT_LIMIT): string {
  const parts: string[] = [i.kind.replace('_', ' ')];
  const tool = qualifiedTool(i);
  if (tool) parts.push(tool.replace(/__|_/g, ' '));
  if (i.uri) parts.push(i.uri);
  if (i.sender || i.recipient) parts.push(`from ${i.sender ?? '?'} to ${i.recipient ?? '?'}`);
  let used = parts.join(' ').length;
  if (i.arguments) {
    for (const leaf of stringLeaves(i.arguments, '')) {
      if (used >= limit) break;
      const piece = `${leaf.field.slice(1)} ${leaf.text}`.slice(0, limit - used);
      parts.push(piece);
      used += piece.length + 1;
    }
  }
  if (i.content !== undefined && used < limit) parts.push(contentText(i.content).slice(0, limit - used));
  return parts.join('\n');
}
