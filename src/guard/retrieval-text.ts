import { contentText, qualifiedTool, stringLeaves } from '../core/fields.js';
import { argumentsOf, contentOf, type Interaction } from '../core/types.js';

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
  if (i.kind === 'resource_request' || i.kind === 'resource_result') parts.push(i.uri);
  if (i.kind === 'prompt_request' || i.kind === 'prompt_result') parts.push(`prompt ${i.prompt}`);
  if (i.kind === 'message' && (i.sender || i.recipient)) parts.push(`from ${i.sender ?? '?'} to ${i.recipient ?? '?'}`);
  let used = parts.join(' ').length;
  const args = argumentsOf(i);
  if (args) {
    for (const leaf of stringLeaves(args, '')) {
      if (used >= limit) break;
      const piece = `${leaf.field.slice(1)} ${leaf.text}`.slice(0, limit - used);
      parts.push(piece);
      used += piece.length + 1;
    }
  }
  const content = contentOf(i);
  if (content !== undefined && used < limit) parts.push(contentHead(content, limit - used));
  return parts.join('\n');
}

/**
 * `contentText(content).slice(0, n)` without joining the whole content (a copy of a long result on the event loop):
 * block by block, until the first `n` characters are had. `contentText` joins its blocks' non-empty texts with a line
 * break, so the head of that join is the head of this one.
 */
export function contentHead(content: NonNullable<ReturnType<typeof contentOf>>, n: number): string {
  if (typeof content === 'string') return content.slice(0, n);
  const parts: string[] = [];
  let at = 0;
  for (const block of content) {
    if (at > n) break;
    const text = contentText([block]);
    if (text.length === 0) continue;
    parts.push(text.slice(0, n - at));
    at += text.length + 1;
  }
  return parts.join('\n').slice(0, n);
}
