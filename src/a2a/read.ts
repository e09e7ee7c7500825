import type { Artifact, ListTasksResponse, Message, Part, SendMessageRequest, StreamResponse, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk';
import { blobText } from '../core/blob-text.js';
import type { ContentBlock } from '../core/types.js';

/**
 * The one reader of A2A content (docs/a2a.md, "What is read"): a message, task, artifact or stream event becomes
 * the content blocks the guard reads, one block per field that carries text or data, in a fixed order; and a
 * redacted copy of those blocks (a decision's `replacement`) is written back into the same fields.
 *
 * - a text part: a text block;
 * - a data part: a text block of its JSON (a redaction mask keeps the JSON valid when it falls inside a string;
 *   when it does not, the answer is withheld);
 * - a file part by bytes: an embedded resource whose `text` is the bytes decoded when they are text (so the
 *   detectors and a redaction read them), otherwise its `blob` (binary bytes carry no text to mask);
 * - a file part by URL: a text block of the URL;
 * - every part's filename, media type and metadata, and the metadata, name, description and extensions of the
 *   message, task, artifact or event around it: a text block of their JSON.
 */

/** One field read: the block the guard sees, and how a redacted block is written back. */
interface Slot {
  block: ContentBlock;
  /** Writes a redacted block back; throws when it cannot (the caller then withholds the whole answer). */
  write(b: ContentBlock): void;
}

/** Fields the reader collects, in order. */
export class A2AReading {
  private readonly slots: Slot[] = [];

  get blocks(): ContentBlock[] {
    return this.slots.map((s) => s.block);
  }

  /**
   * Writes a decision's replacement back into the fields read. The replacement must be the blocks `blocks` gave,
   * masked in place (guard/redact.ts keeps their number and order); anything else throws.
   */
  applyReplacement(replacement: readonly ContentBlock[]): void {
    if (replacement.length !== this.slots.length) throw new Error('the redacted content does not match the fields read');
    this.slots.forEach((s, i) => s.write(replacement[i]!));
  }

  message(m: Message | undefined): this {
    if (!m) return this;
    this.json({ metadata: m.metadata, extensions: m.extensions, referenceTaskIds: m.referenceTaskIds }, (v) => {
      m.metadata = v.metadata as Message['metadata'];
      m.extensions = v.extensions as string[];
      m.referenceTaskIds = v.referenceTaskIds as string[];
    });
    for (const p of m.parts) this.part(p);
    return this;
  }

  /** What a caller sends: the request's metadata and its message. */
  request(r: SendMessageRequest): this {
    this.json({ metadata: r.metadata }, (v) => (r.metadata = v.metadata as SendMessageRequest['metadata']));
    return this.message(r.message);
  }

  task(t: Task | undefined): this {
    if (!t) return this;
    this.json({ metadata: t.metadata }, (v) => (t.metadata = v.metadata as Task['metadata']));
    this.message(t.status?.message);
    for (const a of t.artifacts) this.artifact(a);
    for (const m of t.history) this.message(m);
    return this;
  }

  artifact(a: Artifact | undefined): this {
    if (!a) return this;
    this.json({ name: a.name, description: a.description, metadata: a.metadata, extensions: a.extensions }, (v) => {
      a.name = v.name as string;
      a.description = v.description as string;
      a.metadata = v.metadata as Artifact['metadata'];
      a.extensions = v.extensions as string[];
    });
    for (const p of a.parts) this.part(p);
    return this;
  }

  statusUpdate(e: TaskStatusUpdateEvent): this {
    this.json({ metadata: e.metadata }, (v) => (e.metadata = v.metadata as TaskStatusUpdateEvent['metadata']));
    return this.message(e.status?.message);
  }

  artifactUpdate(e: TaskArtifactUpdateEvent): this {
    this.json({ metadata: e.metadata }, (v) => (e.metadata = v.metadata as TaskArtifactUpdateEvent['metadata']));
    return this.artifact(e.artifact);
  }

  event(e: StreamResponse): this {
    const p = e.payload;
    if (!p) return this;
    if (p.$case === 'task') return this.task(p.value);
    if (p.$case === 'message') return this.message(p.value);
    if (p.$case === 'statusUpdate') return this.statusUpdate(p.value);
    return this.artifactUpdate(p.value);
  }

  /**
   * The text of a streamed artifact so far (its earlier chunks and this one, `stream-text.ts`), read as one block so
   * that instructions split over chunks are read whole. Its earlier part already went out: a redaction that masks
   * only this chunk is written back through the chunk's own fields; one that reaches into the earlier part cannot
   * be, and the event is withheld.
   */
  streamedSoFar(whole: { earlier: string; text: string }): this {
    this.slots.push({
      block: { type: 'text', text: whole.text },
      write: (b) => {
        if (!textOf(b).startsWith(whole.earlier)) throw new Error('the redaction reaches into chunks of the artifact that were already passed on');
      },
    });
    return this;
  }

  /** A message or a task, as SendMessage answers. */
  result(r: Message | Task): this {
    return 'messageId' in r ? this.message(r) : this.task(r);
  }

  taskList(l: ListTasksResponse): this {
    for (const t of l.tasks) this.task(t);
    return this;
  }

  private part(p: Part): void {
    this.json({ filename: p.filename, mediaType: p.mediaType, metadata: p.metadata }, (v) => {
      p.filename = v.filename as string;
      p.mediaType = v.mediaType as string;
      p.metadata = v.metadata as Part['metadata'];
    });
    const c = p.content;
    if (!c) return;
    switch (c.$case) {
      case 'text':
        this.slots.push({ block: { type: 'text', text: c.value }, write: (b) => (c.value = textOf(b)) });
        return;
      case 'url':
        this.slots.push({ block: { type: 'text', text: c.value }, write: (b) => (c.value = textOf(b)) });
        return;
      case 'data':
        this.slots.push({ block: { type: 'text', text: JSON.stringify(c.value ?? null) }, write: (b) => (c.value = JSON.parse(textOf(b)) as unknown) });
        return;
      case 'raw': {
        const bytes = Buffer.from(c.value);
        const base64 = bytes.toString('base64');
        const text = blobText(base64, p.mediaType || undefined);
        const uri = `a2a-file:${p.filename || 'bytes'}`;
        if (text.length === 0) {
          this.slots.push({ block: { type: 'resource', resource: { uri, mimeType: p.mediaType, blob: base64 } }, write: () => {} });
          return;
        }
        this.slots.push({
          block: { type: 'resource', resource: { uri, mimeType: p.mediaType, text } },
          write: (b) => {
            const r = (b as { resource?: { text?: unknown } }).resource;
            if (typeof r?.text !== 'string') throw new Error('the redacted file part has no text');
            if (r.text !== text) c.value = Buffer.from(r.text, 'utf8');
          },
        });
        return;
      }
    }
  }

  /** A JSON text block of the fields that are set (none: no block). */
  private json(fields: Record<string, unknown>, write: (v: Record<string, unknown>) => void): void {
    const set = Object.entries(fields).filter(([, v]) => v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0));
    if (set.length === 0) return;
    const text = JSON.stringify(Object.fromEntries(set));
    this.slots.push({
      block: { type: 'text', text },
      write: (b) => {
        const t = textOf(b);
        if (t === text) return;
        const v = JSON.parse(t) as Record<string, unknown>;
        write({ ...fields, ...v });
      },
    });
  }
}

/** The text a part carries (text, URL, data as JSON, bytes decoded when they are text); no names or metadata. */
export function partText(p: Part): string {
  const c = p.content;
  if (!c) return '';
  if (c.$case === 'text' || c.$case === 'url') return c.value;
  if (c.$case === 'data') return JSON.stringify(c.value ?? null);
  return blobText(Buffer.from(c.value).toString('base64'), p.mediaType || undefined);
}

function textOf(b: ContentBlock): string {
  const t = (b as { text?: unknown }).text;
  if (typeof t !== 'string') throw new Error('a redacted text field is not text');
  return t;
}

/** A fresh reader. */
export function read(): A2AReading {
  return new A2AReading();
}
