/**
 * The published reference servers driven through the built CLI's `serve` with the default policy, as an ordinary
 * client would (issue #26's target): every ordinary tool of @modelcontextprotocol/server-everything with ordinary
 * arguments, its resources (instructions.md among them), its prompts (the completable one with a completion), a
 * sampling request and an elicitation answered normally, its server instructions, its task-based tools (as a
 * task-capable client runs them: task-augmented calls polled to their result, the server's task-augmented sampling
 * and elicitation answered, compared with the same tools driven directly); and server-filesystem doing ordinary file
 * work inside its root. Nothing may be refused, hidden or withheld.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, type CallToolResult, type Result } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLI, filesystemServer, makeSandbox, ROOT, waitFor, writeConfig } from '../support/proxy-harness.js';

const require = createRequire(import.meta.url);
const everythingDir = dirname(require.resolve('@modelcontextprotocol/server-everything/package.json'));
const everythingEntry = join(everythingDir, 'dist', 'index.js');

/** What a refusal looks like on each surface, collected instead of thrown so one run names every refusal. */
const refusals: string[] = [];
beforeEach(() => {
  refusals.length = 0;
});
const tool = (r: unknown): string => {
  const res = r as CallToolResult;
  return res.content?.map((c) => (c.type === 'text' ? c.text : c.type)).join(' ') ?? '';
};

/**
 * An ordinary client that also runs tasks (MCP tasks, the SDK's experimental API): it answers sampling and
 * elicitation, and when a server asks for either as a task, it answers with a task of its own and completes it.
 */
/** What the user answers to any form field the server asks for. */
const ANSWERS: Record<string, unknown> = {
  name: 'Ada Lovelace', check: true, firstLine: 'It was a dark and stormy night.', email: 'ada@example.com', homepage: 'https://example.com', birthdate: '1815-12-10',
  integer: 42, number: 3.14, untitledSingleSelectEnum: 'Monica', untitledMultipleSelectEnum: ['Piano'], favoriteColor: 'blue', agreeToTerms: true, interpretation: 'programming',
};

function taskCapableClient(): Client {
  const c = new Client(
    { name: 'ordinary-client', version: '1.0.0' },
    {
      capabilities: { sampling: {}, elicitation: { form: {}, url: {} }, roots: { listChanged: true }, tasks: { list: {}, cancel: {}, requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } } },
      taskStore: new InMemoryTaskStore(),
    },
  );
  const asTask = async (result: Result, extra: { taskStore?: { createTask(p: { ttl?: number }): Promise<{ taskId: string }>; storeTaskResult(id: string, s: 'completed', r: Result): Promise<void> } }, task: unknown) => {
    if (task === undefined || !extra.taskStore) return result;
    const created = await extra.taskStore.createTask({ ttl: 60_000 });
    setTimeout(() => void extra.taskStore?.storeTaskResult(created.taskId, 'completed', result), 100);
    return { task: created };
  };
  c.setRequestHandler(CreateMessageRequestSchema, (req, extra) =>
    asTask({ role: 'assistant', model: 'test-model', content: { type: 'text', text: 'A short poem about the sea: waves fold and unfold.' } }, extra, req.params.task) as never,
  );
  c.setRequestHandler(ElicitRequestSchema, (req, extra) => {
    if (req.params.mode === 'url') return { action: 'accept' };
    const asked = Object.keys((req.params as { requestedSchema?: { properties?: object } }).requestedSchema?.properties ?? {});
    const content = Object.fromEntries(asked.filter((k) => k in ANSWERS).map((k) => [k, ANSWERS[k]]));
    return asTask({ action: 'accept', content }, extra, req.params.task) as never;
  });
  return c;
}

let sb: ReturnType<typeof makeSandbox>;
let client: Client;
let stderr = '';

beforeAll(async () => {
  sb = makeSandbox();
  mkdirSync(join(sb.fsDir, 'notes'));
  writeFileSync(join(sb.fsDir, 'notes', 'todo.md'), '# Todo\n\n- buy milk\n- call the plumber about the kitchen sink\n');
  const cfg = writeConfig(sb.dir, {
    servers: {
      everything: { command: process.execPath, args: [everythingEntry, 'stdio'] },
      files: filesystemServer(sb.fsDir),
    },
    policy: join(ROOT, 'policies', 'default'),
    store: join(sb.dir, 'state.db'),
    // initialize waits for discovery so the instructions are known; a loaded machine may take longer than 10 s.
    discovery_timeout_ms: 90_000,
  });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', '--config', cfg, '--agent', 'desktop'],
    env: { QUADGUARD_LOG_LEVEL: 'info', PATH: process.env.PATH ?? '', HOME: sb.dir },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  client = taskCapableClient();
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: `file://${sb.fsDir}`, name: 'project' }] }));
  await client.connect(transport);
  // Both servers discovered (on a loaded machine the first list may come before a child has answered).
  await waitFor(async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    return names.includes('everything__echo') && names.includes('files__read_text_file');
  }, 60_000, 'both servers listed');
}, 120_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  rmSync(sb.dir, { recursive: true, force: true });
});

async function callEverything(name: string, args: Record<string, unknown> = {}): Promise<string> {
  try {
    const r = (await client.callTool({ name: `everything__${name}`, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult;
    if (r.isError) refusals.push(`tool ${name}: ${tool(r)}`);
    return tool(r);
  } catch (e) {
    refusals.push(`tool ${name}: ${(e as Error).message}`);
    return '';
  }
}

/**
 * The text of a result with what differs between runs taken out: task ids, how many polls a task took, and the order
 * of the members of a JSON answer quoted in it (the proxy re-serialises what it carries), as a sorted list of lines.
 */
const settled = (t: string): string[] =>
  t
    .replace(/[0-9a-f]{32}|[0-9a-f-]{36}/g, '<id>')
    .split('\n')
    .filter((l) => !/^Poll \d+: /.test(l))
    .map((l) => l.trim().replace(/,$/, ''))
    .filter(Boolean)
    .sort();

/** Runs a tool as a task-augmented call (the task's id and statuses seen, its result), or plainly. */
async function drive(c: Client, name: string, args: Record<string, unknown>, asTask: boolean): Promise<{ text: string; isError: boolean; statuses: string[] }> {
  if (!asTask) {
    const r = (await c.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
    return { text: tool(r), isError: r.isError === true, statuses: [] };
  }
  const statuses: string[] = [];
  for await (const m of c.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, { task: { ttl: 60_000 }, timeout: 60_000 })) {
    if (m.type === 'taskCreated' || m.type === 'taskStatus') statuses.push(m.task.status);
    if (m.type === 'result') return { text: tool(m.result), isError: (m.result as CallToolResult).isError === true, statuses };
    if (m.type === 'error') throw m.error;
  }
  throw new Error(`the task stream of ${name} ended without a result`);
}

// Run before the resources are read: a tool the server's own documentation resource (structure.md) names is then
// held by `hold-untrusted-steering` as "asked for by untrusted content" (a provenance question, not a task one).
describe("server-everything's task-based tools through serve, as a task-capable client runs them", () => {
  /** The task tools and how they are driven: the research query as a task (ambiguous: it asks for clarification). */
  const RUNS: Array<{ tool: string; args: Record<string, unknown>; asTask: boolean; expect: string }> = [
    { tool: 'simulate-research-query', args: { topic: 'python', ambiguous: true }, asTask: true, expect: 'Research Report: python (programming)' },
    { tool: 'simulate-research-query', args: { topic: 'ocean tides' }, asTask: true, expect: 'Research Report: ocean tides' },
    { tool: 'trigger-sampling-request-async', args: { prompt: 'Write a short poem about the sea', maxTokens: 50 }, asTask: false, expect: 'waves fold' },
    { tool: 'trigger-elicitation-request-async', args: {}, asTask: false, expect: 'Favorite Color: blue' },
  ];
  let direct: Client;
  beforeAll(async () => {
    direct = taskCapableClient();
    await direct.connect(new StdioClientTransport({ command: process.execPath, args: [everythingEntry, 'stdio'], stderr: 'ignore' }));
    // The server registers its capability-dependent tools after initialized.
    await waitFor(async () => (await direct.listTools()).tools.some((t) => t.name === 'trigger-elicitation-request-async'), 30_000, 'the direct server listed its task tools');
  }, 60_000);
  afterAll(async () => {
    await direct?.close().catch(() => undefined);
  });

  it('lists them as the server does, the task-only one with its execution', async () => {
    const listed = (await client.listTools()).tools;
    for (const n of ['simulate-research-query', 'trigger-sampling-request-async', 'trigger-elicitation-request-async']) expect(listed.map((t) => t.name)).toContain(`everything__${n}`);
    expect(listed.find((t) => t.name === 'everything__simulate-research-query')?.execution).toEqual({ taskSupport: 'required' });
  });

  it('runs each with zero refusals and the same results as directly', async () => {
    for (const run of RUNS) {
      const via = await drive(client, `everything__${run.tool}`, run.args, run.asTask).catch((e: Error) => ({ text: `threw: ${e.message}`, isError: true, statuses: [] }));
      if (via.isError) refusals.push(`${run.tool}: ${via.text.slice(0, 300)}`);
      const straight = await drive(direct, run.tool, run.args, run.asTask);
      expect(straight.text, run.tool).toContain(run.expect);
      expect(settled(via.text), run.tool).toEqual(settled(straight.text));
      if (run.asTask) expect(via.statuses.at(-1), run.tool).toBe('completed');
    }
    // Called plainly, the task-only tool is run as a task on the server by QuadGuard.
    const plain = (await client.request({ method: 'tools/call', params: { name: 'everything__simulate-research-query', arguments: { topic: 'ocean tides' } } }, CallToolResultSchema, { timeout: 60_000 })) as CallToolResult;
    if (plain.isError) refusals.push(`simulate-research-query (plain): ${tool(plain).slice(0, 300)}`);
    expect(tool(plain)).toContain('Research Report: ocean tides');
    expect(refusals).toEqual([]);
  }, 120_000);
});

describe('server-everything through serve with the default policy', () => {
  it('delivers the server instructions', () => {
    const instructions = client.getInstructions() ?? '';
    const original = readFileSync(join(everythingDir, 'dist', 'docs', 'instructions.md'), 'utf8');
    // The proxy may prefix its own words; the server's instructions must reach the client intact.
    expect(instructions).toContain(original.trim().slice(0, 200));
  });

  it('lists every tool the server registers, none hidden', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const n of ['echo', 'get-annotated-message', 'get-env', 'get-resource-links', 'get-resource-reference', 'get-structured-content', 'get-sum', 'get-tiny-image', 'gzip-file-as-resource', 'toggle-simulated-logging', 'toggle-subscriber-updates', 'trigger-long-running-operation', 'get-roots-list', 'trigger-elicitation-request', 'trigger-sampling-request'])
      expect(names, `everything__${n}`).toContain(`everything__${n}`);
  });

  it('answers every ordinary tool with ordinary arguments', async () => {
    expect(await callEverything('echo', { message: 'hello from the test' })).toContain('hello from the test');
    await callEverything('get-annotated-message', { messageType: 'success', includeImage: true });
    await callEverything('get-env');
    await callEverything('get-resource-links', { count: 3 });
    await callEverything('get-resource-reference', { resourceType: 'Text', resourceId: 1 });
    await callEverything('get-structured-content', { location: 'New York' });
    expect(await callEverything('get-sum', { a: 2, b: 3 })).toContain('5');
    await callEverything('get-tiny-image');
    await callEverything('gzip-file-as-resource', { name: 'hello.txt.gz', data: 'data:text/plain;base64,aGVsbG8gd29ybGQK', outputType: 'resource' });
    await callEverything('toggle-simulated-logging');
    await callEverything('toggle-simulated-logging');
    await callEverything('toggle-subscriber-updates');
    await callEverything('toggle-subscriber-updates');
    await callEverything('trigger-long-running-operation', { duration: 1, steps: 2 });
    await callEverything('get-roots-list');
    expect(await callEverything('trigger-sampling-request', { prompt: 'Write a short poem about the sea', maxTokens: 50 })).toContain('waves fold');
    expect(await callEverything('trigger-elicitation-request')).toContain('Ada Lovelace');
    await callEverything('trigger-url-elicitation', { url: 'https://example.com/oauth/authorize?client_id=demo' });
    expect(refusals).toEqual([]);
  }, 60_000);

  it('reads its resources, instructions.md among them', async () => {
    const resources = (await client.listResources()).resources;
    const uris = resources.map((r) => r.uri);
    expect(uris.some((u) => u.endsWith('instructions.md'))).toBe(true);
    for (const uri of uris) {
      try {
        await client.readResource({ uri });
      } catch (e) {
        refusals.push(`resource ${uri}: ${(e as Error).message}`);
      }
    }
    const first = uris[0] as string;
    try {
      await client.subscribeResource({ uri: first });
      await client.unsubscribeResource({ uri: first });
    } catch (e) {
      refusals.push(`subscribe ${first}: ${(e as Error).message}`);
    }
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates.length).toBeGreaterThan(0);
    try {
      await client.readResource({ uri: 'everything+demo://resource/dynamic/text/1' });
    } catch (e) {
      refusals.push(`resource template text/1: ${(e as Error).message}`);
    }
    expect(refusals).toEqual([]);
  });

  it('gets its prompts, completes the completable one', async () => {
    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    for (const p of ['simple-prompt', 'args-prompt', 'completable-prompt', 'resource-prompt']) expect(prompts).toContain(`everything__${p}`);
    const gets: Array<[string, Record<string, string>]> = [
      ['simple-prompt', {}],
      ['args-prompt', { city: 'Paris', state: 'Texas' }],
      ['completable-prompt', { department: 'Engineering', name: 'Alice' }],
      ['resource-prompt', { resourceType: 'Text', resourceId: '1' }],
    ];
    for (const [name, args] of gets) {
      try {
        await client.getPrompt({ name: `everything__${name}`, arguments: args });
      } catch (e) {
        refusals.push(`prompt ${name}: ${(e as Error).message}`);
      }
    }
    try {
      const c = await client.complete({ ref: { type: 'ref/prompt', name: 'everything__completable-prompt' }, argument: { name: 'department', value: 'Eng' } });
      expect(c.completion.values).toContain('Engineering');
    } catch (e) {
      refusals.push(`completion: ${(e as Error).message}`);
    }
    expect(refusals).toEqual([]);
  });
});

describe('server-filesystem through serve with the default policy: ordinary file work inside its root', () => {
  const call = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const r = (await client.callTool({ name: `files__${name}`, arguments: args })) as CallToolResult;
    if (r.isError) refusals.push(`files ${name}: ${tool(r)}`);
    return tool(r);
  };
  it('lists, reads, writes, edits, searches and moves inside the root', async () => {
    refusals.length = 0;
    await call('list_allowed_directories', {});
    expect(await call('list_directory', { path: sb.fsDir })).toContain('a.txt');
    expect(await call('read_text_file', { path: join(sb.fsDir, 'notes', 'todo.md') })).toContain('buy milk');
    await call('write_file', { path: join(sb.fsDir, 'notes', 'meeting.md'), content: '# Meeting notes\n\nAgreed to ship the release on Friday.\n' });
    await call('edit_file', { path: join(sb.fsDir, 'notes', 'todo.md'), edits: [{ oldText: '- buy milk', newText: '- buy oat milk' }] });
    await call('create_directory', { path: join(sb.fsDir, 'archive') });
    await call('move_file', { source: join(sb.fsDir, 'notes', 'meeting.md'), destination: join(sb.fsDir, 'archive', 'meeting.md') });
    await call('search_files', { path: sb.fsDir, pattern: '*.md' });
    await call('get_file_info', { path: join(sb.fsDir, 'a.txt') });
    await call('directory_tree', { path: sb.fsDir });
    await call('read_multiple_files', { paths: [join(sb.fsDir, 'a.txt'), join(sb.fsDir, 'notes', 'todo.md')] });
    expect(refusals).toEqual([]);
    expect(readFileSync(join(sb.fsDir, 'notes', 'todo.md'), 'utf8')).toContain('buy oat milk');
  }, 60_000);
});
