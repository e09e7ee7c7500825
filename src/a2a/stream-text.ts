import type { Artifact, StreamResponse } from '@a2a-js/sdk';
import { partText } from './read.js';

/** Text kept per streamed artifact (its tail): enough for any instruction split over chunks, bounded per stream. */
export const MAX_ARTIFACT_TEXT = 64 * 1024;
/** Artifacts followed per stream (the oldest forgotten first). */
export const MAX_ARTIFACTS = 64;

/**
 * The text of each artifact of one stream so far, by artifact id. An agent streams an artifact in chunks
 * (`append: true` adds parts to the artifact's earlier ones), so instructions can be split over two events, each
 * harmless alone; the stream's guard reads each appended chunk together with what came before it
 * (`A2AReading.streamedSoFar`). A chunk without `append` (or a task event carrying the artifact) starts it again.
 */
export class StreamedArtifacts {
  private readonly texts = new Map<string, string>();

  /**
   * Follows one event; for a chunk appended to earlier text of its artifact, returns that earlier text (the tail
   * kept) and the text so far; otherwise undefined (the event is read as it is).
   */
  follow(e: StreamResponse): { earlier: string; text: string } | undefined {
    const p = e.payload;
    if (p?.$case === 'task') {
      for (const a of p.value.artifacts) this.set(a.artifactId, textOf(a));
      return undefined;
    }
    if (p?.$case !== 'artifactUpdate' || !p.value.artifact) return undefined;
    const a = p.value.artifact;
    const chunk = textOf(a);
    const earlier = p.value.append ? this.texts.get(a.artifactId) : undefined;
    const text = this.set(a.artifactId, (earlier ?? '') + chunk);
    if (earlier === undefined || earlier === '') return undefined;
    // The tail kept may have cut into the earlier text: what the block holds before this chunk is its earlier part.
    return { earlier: text.slice(0, Math.max(0, text.length - chunk.length)), text };
  }

  private set(id: string, text: string): string {
    const kept = text.length > MAX_ARTIFACT_TEXT ? text.slice(-MAX_ARTIFACT_TEXT) : text;
    this.texts.delete(id);
    this.texts.set(id, kept);
    if (this.texts.size > MAX_ARTIFACTS) this.texts.delete(this.texts.keys().next().value!);
    return kept;
  }
}

function textOf(a: Artifact): string {
  return a.parts.map(partText).join('');
}
