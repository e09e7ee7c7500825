/**
 * The published reference servers driven through the built CLI's `serve` with the default policy, as an ordinary
 * client would (issue #26's target): every ordinary tool of @modelcontextprotocol/server-everything with ordinary
 * arguments, its resources (instructions.md and its other documentation among them), its prompts (the completable one
 * with a completion), a sampling request and an elicitation answered normally, its server instructions, its task-based
 * tools (as a task-capable client runs them: task-augmented calls polled to their result, the server's task-augmented
 * sampling and elicitation answered, compared with the same tools driven directly); and server-filesystem doing
 * ordinary file work inside its root. Nothing may be refused, hidden or withheld.
 *
 * Each order below is one client in one session of its own `serve` (its own store), as a real client works: reading a
 * server's documentation first and then using the tools it documents is the order that found provenance holding a
 * tool because the server's own `structure.md` names it (docs/provenance.md, "Documentation is not a request").
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import { CallToolResultSchema, CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema, type CallToolResult, type Result } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, filesystemServer, makeSandbox, ROOT, waitFor, writeConfig } from '../support/proxy-harness.js';

const require = createRequire(import.meta.url);
const everythingDir = dirname(require.resolve('@modelcontextprotocol/server-everything/package.json'));
const everythingEntry = join(everythingDir, 'dist', 'index.js');

/** A refusal in a line: the steering a hold names, or the head of the text. */
const why = (text: string): string => /steered by untrusted content: ([^\n]*?) \(audit/.exec(text)?.[1] ?? text.slice(0, 300);

const tool = (r: unknown): string => {
  const res = r as CallToolResult;
  return res.content?.map((c) => (c.type === 'text' ? c.text : c.type)).join(' ') ?? '';
};

/** What the user answers to any form field the server asks for. */
const ANSWERS: Record<string, unknown> = {
  name: 'Ada Lovelace', check: true, firstLine: 'It was a dark and stormy night.', email: 'ada@example.com', homepage: 'https://example.com', birthdate: '1815-12-10',
  integer: 42, number: 3.14, untitledSingleSelectEnum: 'Monica', untitledMultipleSelectEnum: ['Piano'], favoriteColor: 'blue', agreeToTerms: true, interpretation: 'programming',
};

/**
 * An ordinary client that also runs tasks (MCP tasks, the SDK's experimental API): it answers sampling and
 * elicitation, and when a server asks for either as a task, it answers with a task of its own and completes it.
 */
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

/** One ordinary client in one session of its own `serve` (its own store and folder); refusals are collected, not thrown. */
interface Session {
  client: Client;
  fsDir: string;
  refusals: string[];
  close(): Promise<void>;
}

async function openSession(agent: string): Promise<Session> {
  const sb = makeSandbox();
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
    args: [CLI, 'serve', '--config', cfg, '--agent', agent],
    env: { QUADGUARD_LOG_LEVEL: 'info', PATH: process.env.PATH ?? '', HOME: sb.dir },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = taskCapableClient();
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: `file://${sb.fsDir}`, name: 'project' }] }));
  await client.connect(transport);
  // Both servers discovered (on a loaded machine the first list may come before a child has answered).
  await waitFor(async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    return names.includes('everything__echo') && names.includes('files__read_text_file');
  }, 60_000, 'both servers listed');
  return {
    client,
    fsDir: sb.fsDir,
    refusals: [],
    close: async () => {
      await client.close().catch(() => undefined);
      rmSync(sb.dir, { recursive: true, force: true });
    },
  };
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

/** The task tools and how they are driven: the research query as a task (ambiguous: it asks for clarification). */
const TASK_RUNS: Array<{ tool: string; args: Record<string, unknown>; asTask: boolean; expect: string }> = [
  { tool: 'simulate-research-query', args: { topic: 'python', ambiguous: true }, asTask: true, expect: 'Research Report: python (programming)' },
  { tool: 'simulate-research-query', args: { topic: 'ocean tides' }, asTask: true, expect: 'Research Report: ocean tides' },
  { tool: 'trigger-sampling-request-async', args: { prompt: 'Write a short poem about the sea', maxTokens: 50 }, asTask: false, expect: 'waves fold' },
  { tool: 'trigger-elicitation-request-async', args: {}, asTask: false, expect: 'Favorite Color: blue' },
];

/** The same task tools driven directly (no proxy), once for every order: what the proxied results must equal. */
let directResults: Promise<string[][]> | undefined;
function direct(): Promise<string[][]> {
  directResults ??= (async () => {
    const c = taskCapableClient();
    await c.connect(new StdioClientTransport({ command: process.execPath, args: [everythingEntry, 'stdio'], stderr: 'ignore' }));
    try {
      // The server registers its capability-dependent tools after initialized.
      await waitFor(async () => (await c.listTools()).tools.some((t) => t.name === 'trigger-elicitation-request-async'), 30_000, 'the direct server listed its task tools');
      const out: string[][] = [];
      for (const run of TASK_RUNS) {
        const straight = await drive(c, run.tool, run.args, run.asTask);
        expect(straight.text, run.tool).toContain(run.expect);
        out.push(settled(straight.text));
      }
      return out;
    } finally {
      await c.close().catch(() => undefined);
    }
  })();
  return directResults;
}

async function callEverything(s: Session, name: string, args: Record<string, unknown> = {}): Promise<string> {
  try {
    const r = (await s.client.callTool({ name: `everything__${name}`, arguments: args }, undefined, { timeout: 30_000 })) as CallToolResult;
    if (r.isError) s.refusals.push(`tool ${name}: ${why(tool(r))}`);
    return tool(r);
  } catch (e) {
    s.refusals.push(`tool ${name}: ${(e as Error).message}`);
    return '';
  }
}

/** What a client does with a server's words: its instructions, every resource and template, every prompt, a completion. */
async function readDocs(s: Session): Promise<void> {
  const { client } = s;
  const instructions = client.getInstructions() ?? '';
  const original = readFileSync(join(everythingDir, 'dist', 'docs', 'instructions.md'), 'utf8');
  // The proxy may prefix its own words; the server's instructions must reach the client intact.
  expect(instructions).toContain(original.trim().slice(0, 200));
  const uris = (await client.listResources()).resources.map((r) => r.uri);
  expect(uris.some((u) => u.endsWith('instructions.md'))).toBe(true);
  expect(uris.some((u) => u.endsWith('structure.md'))).toBe(true);
  for (const uri of uris) {
    try {
      await client.readResource({ uri });
    } catch (e) {
      s.refusals.push(`resource ${uri}: ${(e as Error).message}`);
    }
  }
  const first = uris[0] as string;
  try {
    await client.subscribeResource({ uri: first });
    await client.unsubscribeResource({ uri: first });
  } catch (e) {
    s.refusals.push(`subscribe ${first}: ${(e as Error).message}`);
  }
  const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
  expect(templates.length).toBeGreaterThan(0);
  for (const uri of ['everything+demo://resource/dynamic/text/1', 'everything+demo://resource/dynamic/blob/2']) {
    try {
      await client.readResource({ uri });
    } catch (e) {
      s.refusals.push(`resource template ${uri}: ${(e as Error).message}`);
    }
  }
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
      s.refusals.push(`prompt ${name}: ${(e as Error).message}`);
    }
  }
  try {
    const c = await client.complete({ ref: { type: 'ref/prompt', name: 'everything__completable-prompt' }, argument: { name: 'department', value: 'Eng' } });
    expect.soft(c.completion.values).toContain('Engineering');
  } catch (e) {
    s.refusals.push(`completion: ${(e as Error).message}`);
  }
}

/** Every ordinary tool of server-everything with ordinary arguments (sampling and elicitation answered). */
async function callTools(s: Session): Promise<void> {
  const names = (await s.client.listTools()).tools.map((t) => t.name);
  for (const n of ['echo', 'get-annotated-message', 'get-env', 'get-resource-links', 'get-resource-reference', 'get-structured-content', 'get-sum', 'get-tiny-image', 'gzip-file-as-resource', 'toggle-simulated-logging', 'toggle-subscriber-updates', 'trigger-long-running-operation', 'get-roots-list', 'trigger-elicitation-request', 'trigger-sampling-request'])
    expect(names, `everything__${n}`).toContain(`everything__${n}`);
  expect.soft(await callEverything(s, 'echo', { message: 'hello from the test' })).toContain('hello from the test');
  await callEverything(s, 'get-annotated-message', { messageType: 'success', includeImage: true });
  await callEverything(s, 'get-env');
  await callEverything(s, 'get-resource-links', { count: 3 });
  await callEverything(s, 'get-resource-reference', { resourceType: 'Text', resourceId: 1 });
  await callEverything(s, 'get-structured-content', { location: 'New York' });
  expect.soft(await callEverything(s, 'get-sum', { a: 2, b: 3 })).toContain('5');
  await callEverything(s, 'get-tiny-image');
  await callEverything(s, 'gzip-file-as-resource', { name: 'hello.txt.gz', data: 'data:text/plain;base64,aGVsbG8gd29ybGQK', outputType: 'resource' });
  await callEverything(s, 'gzip-file-as-resource', { name: 'notes.txt.gz', data: 'data:text/plain;base64,bm90ZXMK', outputType: 'resourceLink' });
  await callEverything(s, 'toggle-simulated-logging');
  await callEverything(s, 'toggle-simulated-logging');
  await callEverything(s, 'toggle-subscriber-updates');
  await callEverything(s, 'toggle-subscriber-updates');
  await callEverything(s, 'trigger-long-running-operation', { duration: 1, steps: 2 });
  await callEverything(s, 'get-roots-list');
  expect.soft(await callEverything(s, 'trigger-sampling-request', { prompt: 'Write a short poem about the sea', maxTokens: 50 })).toContain('waves fold');
  expect.soft(await callEverything(s, 'trigger-elicitation-request')).toContain('Ada Lovelace');
  await callEverything(s, 'trigger-url-elicitation', { url: 'https://example.com/oauth/authorize?client_id=demo' });
}

/** The task-based tools through serve: the same results as directly, task-only ones also when called plainly. */
async function callTaskTools(s: Session): Promise<void> {
  const listed = (await s.client.listTools()).tools;
  for (const n of ['simulate-research-query', 'trigger-sampling-request-async', 'trigger-elicitation-request-async']) expect(listed.map((t) => t.name)).toContain(`everything__${n}`);
  expect(listed.find((t) => t.name === 'everything__simulate-research-query')?.execution).toEqual({ taskSupport: 'required' });
  const straight = await direct();
  for (const [k, run] of TASK_RUNS.entries()) {
    const via = await drive(s.client, `everything__${run.tool}`, run.args, run.asTask).catch((e: Error) => ({ text: `threw: ${e.message}`, isError: true, statuses: [] }));
    if (via.isError) {
      s.refusals.push(`${run.tool}: ${why(via.text)}`);
      continue;
    }
    expect.soft(settled(via.text), run.tool).toEqual(straight[k]);
    if (run.asTask) expect(via.statuses.at(-1), run.tool).toBe('completed');
  }
  // Called plainly, the task-only tool is run as a task on the server by QuadGuard.
  const plain = (await s.client.request({ method: 'tools/call', params: { name: 'everything__simulate-research-query', arguments: { topic: 'ocean tides' } } }, CallToolResultSchema, { timeout: 60_000 })) as CallToolResult;
  if (plain.isError) s.refusals.push(`simulate-research-query (plain): ${why(tool(plain))}`);
  else expect(tool(plain)).toContain('Research Report: ocean tides');
}

/** server-filesystem: lists, reads, writes, edits, searches and moves inside the root. */
async function fileWork(s: Session): Promise<void> {
  const dir = s.fsDir;
  const call = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const r = (await s.client.callTool({ name: `files__${name}`, arguments: args })) as CallToolResult;
    if (r.isError) s.refusals.push(`files ${name}: ${why(tool(r))}`);
    return tool(r);
  };
  await call('list_allowed_directories', {});
  expect.soft(await call('list_directory', { path: dir })).toContain('a.txt');
  expect.soft(await call('read_text_file', { path: join(dir, 'notes', 'todo.md') })).toContain('milk');
  await call('write_file', { path: join(dir, 'notes', 'meeting.md'), content: '# Meeting notes\n\nAgreed to ship the release on Friday.\n' });
  await call('edit_file', { path: join(dir, 'notes', 'todo.md'), edits: [{ oldText: '- buy milk', newText: '- buy oat milk' }] });
  await call('create_directory', { path: join(dir, 'archive') });
  await call('move_file', { source: join(dir, 'notes', 'meeting.md'), destination: join(dir, 'archive', 'meeting.md') });
  await call('search_files', { path: dir, pattern: '*.md' });
  await call('get_file_info', { path: join(dir, 'a.txt') });
  await call('directory_tree', { path: dir });
  await call('read_multiple_files', { paths: [join(dir, 'a.txt'), join(dir, 'notes', 'todo.md')] });
  expect.soft(readFileSync(join(dir, 'notes', 'todo.md'), 'utf8')).toContain('buy oat milk');
}

const STEPS = { docs: readDocs, tools: callTools, tasks: callTaskTools, files: fileWork } as const;
type Step = keyof typeof STEPS;

/**
 * The orders: the server's documentation first and then everything it documents; and the tools first, the
 * documentation in the middle and the tools again after it (in one session, so what was read earlier is in the state).
 */
const ORDERS: Array<{ name: string; steps: Step[] }> = [
  { name: 'documentation first, then every tool, task tool and file', steps: ['docs', 'tools', 'tasks', 'files'] },
  { name: 'files and tools first, then the documentation, then the tools again', steps: ['files', 'tools', 'docs', 'tasks', 'tools'] },
];

describe.each(ORDERS)('server-everything and server-filesystem through serve with the default policy: $name', ({ name, steps }) => {
  let s: Session;
  beforeAll(async () => {
    s = await openSession(`desktop-${ORDERS.findIndex((o) => o.name === name)}`);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
  });

  it('refuses, hides and withholds nothing, in one session', async () => {
    for (const step of steps) await STEPS[step](s);
    expect(s.refusals).toEqual([]);
  }, 240_000);
});
