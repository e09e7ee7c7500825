import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelEmbedder } from '../../src/guard/model/index.js';
import type { Logger } from '../../src/core/log.js';
import { useScriptedLlmServer } from '../support/scripted-llm-server.js';
import { BOOK, bank, clientFor, guardWith, is, updates } from './helpers.js';

/** A pino logger whose lines are kept in memory. */
function memoryLogger(): { logger: Logger; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk, _enc, cb) {
      out += String(chunk);
      cb();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), text: () => out };
}

/**
 * The test book with one more predicate that no rule names and no tool binds: must-check does not list it, so the
 * retrieval runs (with every predicate of an interaction's kind already in must-check, the tracker skips top-k).
 */
function bookWithRetrieval(dir: string): string {
  const folder = join(dir, 'book-retrieval');
  mkdirSync(folder, { recursive: true });
  const extra = `  - name: unusual_hour\n    description: The call is made at an unusual hour for this user.\n    keywords: [night, unusual hour]\n    scope: action\n\n`;
  writeFileSync(join(folder, 'book.yaml'), readFileSync(join(BOOK, 'book.yaml'), 'utf8').replace('predicates:\n', `predicates:\n${extra}`));
  return folder;
}

const embed = (_body: unknown, path: string) => path === '/v1/embeddings';

describe('guard with a model: top-k with the embedding model', () => {
  const llm = useScriptedLlmServer({ per: 'block', embeddingDims: 16 });
  let dir: string;
  const disposers: Array<() => void> = [];
  afterEach(() => {
    for (const d of disposers.splice(0)) d();
    rmSync(dir, { recursive: true, force: true });
  });

  async function guard(logger: Logger, folder: string | ((hash: string) => string), book = BOOK) {
    const client = clientFor(llm, { models: { light: 'light-m', strong: 'strong-m', embedding: 'embed-m' } });
    const embedder = await createModelEmbedder(client, logger);
    const g = await guardWith(client, { book, extra: { logger, ...(embedder ? { embedder, indexFolder: folder } : {}) } });
    disposers.push(() => g.dispose());
    return { g, embedder };
  }

  it('builds a vectra index per book hash with the embedding model, queries it per interaction, and reuses it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-emb-'));
    llm.when(is('tracker', 'light'), updates(['fraud_request', true, 0.9]));
    const folder = (hash: string) => join(dir, 'index', hash.slice(0, 16));
    const { logger, text } = memoryLogger();
    const book = bookWithRetrieval(dir);
    const { g, embedder } = await guard(logger, folder, book);
    expect(embedder?.id).toMatch(/^openai:.*#embed-m@16$/);
    const built = llm.embeddingRequests.length;
    expect(built).toBeGreaterThanOrEqual(2); // probe + index build
    expect(existsSync(folder(g.book.hash))).toBe(true);
    const d = await g.pipeline.check(bank('transfer', { to: 'acct-1', amount: 5 }));
    expect(d.decision).toBe('deny');
    expect(llm.embeddingRequests.length).toBe(built + 1); // the query
    expect(text()).not.toContain('top-k retrieval failed');
    expect(text()).not.toContain('local embedder');

    llm.reset();
    llm.when(is('tracker', 'light'), updates());
    await guard(logger, folder, book); // same book, same embedder: the persisted index is reused
    expect(llm.embeddingRequests.length).toBe(1); // the probe only
  });

  it('rebuilds the index when the book changes', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-emb-'));
    const folder = join(dir, 'index');
    const { logger } = memoryLogger();
    await guard(logger, folder);
    llm.reset();
    const book2 = join(dir, 'book2');
    mkdirSync(book2);
    writeFileSync(join(book2, 'book.yaml'), readFileSync(join(BOOK, 'book.yaml'), 'utf8').replace('version: "1.0.0"', 'version: "1.0.1"'));
    await guard(logger, folder, book2);
    expect(llm.embeddingRequests.length).toBeGreaterThan(1); // probe + rebuild
  });

  it('an embedding endpoint down at start-up: local embedder, a warning, no crash', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-emb-'));
    llm.when(embed, { status: 503 });
    llm.when(is('tracker', 'light'), updates(['fraud_request', true, 0.9]));
    const { logger, text } = memoryLogger();
    const { g, embedder } = await guard(logger, join(dir, 'index'));
    expect(embedder).toBeUndefined();
    expect(text()).toContain('falling back to the local embedder');
    const d = await g.pipeline.check(bank('transfer', { to: 'acct-1', amount: 5 }));
    expect(d.decision).toBe('deny');
  });

  it('an index build that fails after the probe falls back to the local embedder', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-emb-'));
    llm.script({ embeddings: [new Array(16).fill(0.25)] }); // the probe succeeds
    llm.when(embed, { status: 500 });
    llm.when(is('tracker', 'light'), updates());
    const { logger, text } = memoryLogger();
    const { g, embedder } = await guard(logger, join(dir, 'index'));
    expect(embedder).toBeDefined();
    expect(text()).toContain('using the local embedder');
    expect((await g.pipeline.check(bank('balance', { account: 'a' }))).decision).toBe('allow');
  });

  it('a failed query: the must-check predicates only, with a warning, and the interaction is still decided', async () => {
    dir = mkdtempSync(join(tmpdir(), 'qg-emb-'));
    const { logger, text } = memoryLogger();
    const { g } = await guard(logger, join(dir, 'index'), bookWithRetrieval(dir));
    llm.when(embed, { status: 500 });
    llm.when(is('tracker', 'light'), updates(['fraud_request', true, 0.9]));
    const d = await g.pipeline.check(bank('transfer', { to: 'acct-1', amount: 5 }));
    expect(text()).toContain('top-k retrieval failed');
    expect(d.decision).toBe('deny'); // fraud_request is must-check for bank__* tools
    expect(d.rules).toEqual(['no-fraud']);
  });
});
