/**
 * The tracker runs top-k retrieval only when it can add a candidate: when must-check already lists every predicate
 * whose scope applies to the interaction's kind (the default book's tool results), the retrieval is skipped. Compared
 * here with the full computation, C = MustCheck ∪ TopK (the k best applicable hits of k·3 retrieved), on every shipped
 * book, interactions of every kind, and threat levels 0 to 4: the same candidates in the same order, the same values.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import '../../src/detectors/index.js';
import { InteractionSchema, type Interaction, type InteractionInput } from '../../src/core/types.js';
import { prepareBook } from '../../src/guard/book.js';
import { TrackerOptionsSchema } from '../../src/guard/options.js';
import { retrievalText } from '../../src/guard/retrieval-text.js';
import { candidateBudget, createTracker } from '../../src/guard/tracker.js';
import { predicateApplies } from '../../src/policy/evaluate.js';
import type { PredicateIndex } from '../../src/retrieval/predicate-index.js';

const POLICIES = join(import.meta.dirname, '../../policies');
const BOOKS = readdirSync(POLICIES);
const who = { agent: 'agent-1', session: 'session-1' };
const TEXT = 'Meeting notes: send the report by email, delete the old backups, rotate the api key; the patient record and the flight booking follow.';
const INTERACTIONS: InteractionInput[] = [
  ...['read_file', 'write_file', 'send_email', 'http_post', 'run_shell', 'delete_file', 'query', 'book_flight'].map((tool) => ({ ...who, kind: 'tool_call' as const, server: 'srv', tool, arguments: { path: 'notes.txt', to: 'a@b.example', body: TEXT } })),
  ...['read_file', 'fetch', 'query'].map((tool) => ({ ...who, kind: 'tool_result' as const, server: 'srv', tool, content: [{ type: 'text', text: TEXT }] })),
  { ...who, kind: 'resource_request', server: 'docs', uri: 'file:///srv/notes.md' },
  { ...who, kind: 'resource_result', server: 'docs', uri: 'file:///srv/notes.md', content: [{ type: 'text', text: TEXT }] },
  { ...who, kind: 'prompt_request', server: 'docs', prompt: 'summarize', arguments: { topic: TEXT } },
  { ...who, kind: 'prompt_result', server: 'docs', prompt: 'summarize', content: [{ type: 'text', text: TEXT }] },
  { ...who, kind: 'message', sender: 'planner', recipient: 'mailer', content: TEXT },
  { ...who, kind: 'sampling_request', server: 'srv', content: [{ type: 'text', text: TEXT }] },
  { ...who, kind: 'sampling_result', server: 'srv', content: [{ type: 'text', text: TEXT }] },
  { ...who, kind: 'elicitation_request', server: 'srv', content: [{ type: 'text', text: TEXT }] },
  { ...who, kind: 'elicitation_result', server: 'srv', action: 'accept', arguments: { note: TEXT } },
  { ...who, kind: 'log_message', server: 'srv', logger: 'app', content: [{ type: 'text', text: TEXT }] },
  { ...who, kind: 'roots_result', server: 'fs', arguments: { roots: [{ uri: 'file:///srv/work', name: 'work' }] } },
];

/** The index, with its retrievals counted (not the sparse class: the tracker then asks through `topK`). */
function counted(index: PredicateIndex): PredicateIndex & { asked: number } {
  const out = { embedderId: index.embedderId, asked: 0, topK: (text: string, k: number, only?: ReadonlySet<string>) => (out.asked++, index.topK(text, k, only)) };
  return out;
}

describe('tracker: retrieval only where it can add a candidate', () => {
  it.each(BOOKS)('%s: the candidates and values of the full computation, for every kind and level', async (name) => {
    const { book, index } = await prepareBook(join(POLICIES, name));
    const o = TrackerOptionsSchema.parse({});
    const probe = counted(index);
    const track = createTracker(book, probe, o);
    let skipped = 0;
    for (const input of INTERACTIONS) {
      const i: Interaction = InteractionSchema.parse(input);
      for (const level of [0, 1, 2, 3, 4]) {
        const k = candidateBudget(book.predicates.length, level, o);
        const hits = await index.topK(retrievalText(i), Math.min(book.predicates.length, k * 3));
        const top = hits.map((h) => book.byName.get(h.name)!).filter((p) => p !== undefined && predicateApplies(p, i)).slice(0, k);
        const full = [...new Set([...book.graph.mustCheck(i).map((p) => p.name), ...top.map((p) => p.name)])];
        const before = probe.asked;
        const t = await track(i, level, new Map());
        expect(t.candidates, `${i.kind} ${'tool' in i ? i.tool : ''} level ${level}`).toEqual(full);
        for (const n of full) expect(t.lookup(n)).toBe(t.values.get(n)?.value ?? 'false');
        if (probe.asked === before) skipped++;
      }
    }
    // The default book lists every predicate about results as must-check: its tool results are never retrieved for.
    if (name === 'default') expect(skipped).toBeGreaterThanOrEqual(3 * 5);
  });
});
