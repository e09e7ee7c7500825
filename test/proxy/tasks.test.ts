/**
 * End to end through the built CLI (`quadguard serve`, stdio, default policy) in front of a real task-capable
 * server (servers/tasks.ts): MCP tasks through the proxy. A tool the server runs only as a task is listed as it is
 * and callable both ways; a client's task-augmented call becomes a QuadGuard task whose result (tasks/result) is
 * the guard-checked one, never the server's raw result; tasks/get, tasks/list and tasks/cancel work on it.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLEAN_REPORT, TASK_INJECTION } from '../../servers/tasks.js';
import { CLI, ROOT, makeSandbox, waitFor, writeConfig } from '../support/proxy-harness.js';

const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;

/** Runs a task-augmented call to its end: the task id, the statuses seen, and the final result. */
async function runAsTask(client: Client, name: string, args: Record<string, unknown>): Promise<{ taskId: string; statuses: string[]; result: CallToolResult }> {
  let taskId = '';
  const statuses: string[] = [];
  for await (const m of client.experimental.tasks.callToolStream({ name, arguments: args }, CallToolResultSchema, { task: { ttl: 60_000 } })) {
    if (m.type === 'taskCreated') taskId = m.task.taskId;
    if (m.type === 'taskStatus') statuses.push(m.task.status);
    if (m.type === 'result') return { taskId, statuses, result: m.result as CallToolResult };
    if (m.type === 'error') throw m.error;
  }
  throw new Error('the task stream ended without a result');
}

describe('MCP tasks through quadguard serve (default policy)', { timeout: 90_000 }, () => {
  const sb = makeSandbox();
  let client: Client;

  beforeAll(async () => {
    const cfg = writeConfig(sb.dir, {
      servers: { jobs: { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'tasks.js')], namespace: false } },
      policy: join(ROOT, 'policies', 'default'),
      store: join(sb.dir, 'state.db'),
    });
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'serve', '--config', cfg, '--agent', 'tester'], env: { PATH: process.env.PATH ?? '' }, stderr: 'ignore' });
    client = new Client({ name: 'test', version: '0.0.0' });
    await client.connect(transport);
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    rmSync(sb.dir, { recursive: true, force: true });
  });

  it('declares tasks and lists a task-only tool as the server does', async () => {
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const tool = (await client.listTools()).tools.find((t) => t.name === 'slow_report');
    expect(tool?.execution).toEqual({ taskSupport: 'required' });
    expect(tool?.description).toBe('Builds the weekly report (takes a while; runs as a task)');
  });

  it('runs a task-only tool as a task on the server when the client calls it plainly', async () => {
    // The SDK client refuses to call a task-only tool without a task, so the request is sent as is.
    const r = await client.request({ method: 'tools/call', params: { name: 'slow_report', arguments: { variant: 'clean', delay_ms: 100 } } }, CallToolResultSchema);
    expect(r.isError).toBeFalsy();
    expect(text(r)).toBe(CLEAN_REPORT);
  });

  it('answers a task-augmented call with a task whose result is the checked result', async () => {
    const run = await runAsTask(client, 'slow_report', { variant: 'clean', delay_ms: 200 });
    expect(run.taskId).not.toBe('');
    expect(text(run.result)).toBe(CLEAN_REPORT);
    expect((await client.experimental.tasks.getTask(run.taskId)).status).toBe('completed');
    // A plain tool called as a task: QuadGuard's own task around an ordinary call.
    expect(text((await runAsTask(client, 'echo', { text: 'as a task' })).result)).toBe('as a task');
  });

  it('never hands out a task result the guard did not check: an injected result is blocked, on every route', async () => {
    const run = await runAsTask(client, 'slow_report', { variant: 'injected', delay_ms: 100 });
    expect(run.result.isError).toBe(true);
    expect(text(run.result)).toMatch(/^Blocked by QuadGuard: the result of tool slow_report was not allowed/);
    expect(text(run.result)).toContain('no-injection-in-results');
    expect(JSON.stringify(run.result)).not.toContain(TASK_INJECTION.slice(0, 30));
    // tasks/get and tasks/result asked directly say the same.
    expect((await client.experimental.tasks.getTask(run.taskId)).status).toBe('completed');
    const again = (await client.experimental.tasks.getTaskResult(run.taskId, CallToolResultSchema)) as CallToolResult;
    expect(text(again)).toBe(text(run.result));
  });

  it('lists the session\'s tasks and cancels a running one', async () => {
    const stream = client.experimental.tasks.callToolStream({ name: 'slow_report', arguments: { variant: 'clean', delay_ms: 30_000 } }, CallToolResultSchema, { task: { ttl: 60_000 } });
    const first = await stream.next();
    expect(first.value?.type).toBe('taskCreated');
    const taskId = (first.value as { task: { taskId: string } }).task.taskId;
    // Cancel once the server's own task runs (cancelled before, the call would never reach the server at all).
    const serverStatuses = async () => JSON.parse(text((await client.callTool({ name: 'task_statuses', arguments: {} })) as CallToolResult)) as string[];
    await waitFor(async () => (await serverStatuses()).includes('working'), 20_000, 'the server\'s task to start');
    const listed = (await client.experimental.tasks.listTasks()).tasks;
    expect(listed.find((t) => t.taskId === taskId)?.status).toBe('working');
    const cancelled = await client.experimental.tasks.cancelTask(taskId);
    expect(cancelled.status).toBe('cancelled');
    await waitFor(async () => (await client.experimental.tasks.getTask(taskId)).status === 'cancelled', 5_000, 'the task to stay cancelled');
    // ...and the server's own task, which QuadGuard was waiting on, is cancelled there.
    await waitFor(async () => (await serverStatuses()).includes('cancelled'), 10_000, 'the server\'s task to be cancelled');
    await stream.return(undefined);
  });
});
