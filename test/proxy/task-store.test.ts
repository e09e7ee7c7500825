import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Result } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/log.js';
import { SessionTaskStore, startRequestTask } from '../../src/proxy/task-store.js';

/** The view of a store one request handler gets (the SDK's `extra.taskStore`), over the proxy's store. */
function requestView(store: SessionTaskStore): RequestTaskStore {
  return {
    createTask: (p) => store.createTask(p, 1, { method: 'sampling/createMessage', params: {} }),
    getTask: async (id) => (await store.getTask(id))!,
    storeTaskResult: (id, status, result) => store.storeTaskResult(id, status, result),
    getTaskResult: (id) => store.getTaskResult(id),
    updateTaskStatus: (id, status, message) => store.updateTaskStatus(id, status, message),
    listTasks: (cursor) => store.listTasks(cursor),
  };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe("startRequestTask: a server's task-augmented request answered as the proxy's own task", () => {
  const store = new SessionTaskStore();
  afterEach(() => store.cleanup());

  it("answers with a working task at once and stores the carried request's answer as its result", async () => {
    let release!: (r: Result) => void;
    const { task } = await startRequestTask(store, requestView(store), 60_000, () => new Promise<Result>((r) => (release = r)), silentLogger());
    expect((await store.getTask(task.taskId))?.status).toBe('working');
    release({ role: 'assistant', model: 'm', content: { type: 'text', text: 'hi' } });
    await settle();
    expect((await store.getTask(task.taskId))?.status).toBe('completed');
    expect(await store.getTaskResult(task.taskId)).toMatchObject({ model: 'm' });
    expect(store.running.size).toBe(0);
  });

  it('fails the task with the reason when the request is refused or fails; no result is stored', async () => {
    const { task } = await startRequestTask(store, requestView(store), undefined, () => Promise.reject(new Error('withheld by QuadGuard (rule no-secret-leak)')), silentLogger());
    await settle();
    const t = await store.getTask(task.taskId);
    expect(t?.status).toBe('failed');
    expect(t?.statusMessage).toContain('no-secret-leak');
    await expect(store.getTaskResult(task.taskId)).rejects.toThrow(/no result/);
  });

  it('aborts the carried request when the server cancels the task', async () => {
    let signal: AbortSignal | undefined;
    const { task } = await startRequestTask(store, requestView(store), undefined, (s) => ((signal = s), new Promise<Result>(() => undefined)), silentLogger());
    await store.updateTaskStatus(task.taskId, 'cancelled');
    expect(signal?.aborted).toBe(true);
  });
});
