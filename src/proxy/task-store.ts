import { InMemoryTaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/stores/in-memory.js';
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CreateTaskResult, Result, TaskStatus } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../core/errors.js';
import type { Logger } from '../core/log.js';

/**
 * The proxy's MCP task stores (docs/proxying.md, "Tasks"): one per upstream session for the tools/call tasks it runs
 * for its client (tasks.ts), one per downstream connection for the sampling and elicitation tasks it runs for a server
 * (downstream.ts). Cancelling a task (tasks/cancel) aborts its work.
 */
export class SessionTaskStore extends InMemoryTaskStore {
  /** Aborts the work of each running task (tasks/cancel). */
  readonly running = new Map<string, AbortController>();

  override async updateTaskStatus(taskId: string, status: TaskStatus, statusMessage?: string, sessionId?: string): Promise<void> {
    await super.updateTaskStatus(taskId, status, statusMessage, sessionId);
    if (status === 'cancelled') this.running.get(taskId)?.abort(new Error('the task was cancelled'));
  }
}

/**
 * A server's task-augmented request to its client (sampling, elicitation, with `params.task`), answered as a task:
 * the CreateTaskResult at once, and `work` (the request carried to the upstream client as usual, guard included)
 * run in the background; its answer becomes the task's result (tasks/result), its error the task's failure. The
 * server polls tasks/get and fetches tasks/result from the proxy's store.
 */
export async function startRequestTask(
  store: SessionTaskStore,
  taskStore: RequestTaskStore,
  ttl: number | undefined,
  work: (signal: AbortSignal) => Promise<Result>,
  log: Logger,
): Promise<CreateTaskResult> {
  const task = await taskStore.createTask(ttl !== undefined ? { ttl } : {});
  const abort = new AbortController();
  store.running.set(task.taskId, abort);
  void (async () => {
    try {
      const result = await work(abort.signal);
      if (!abort.signal.aborted) await taskStore.storeTaskResult(task.taskId, 'completed', result);
    } catch (err) {
      if (!abort.signal.aborted) await taskStore.updateTaskStatus(task.taskId, 'failed', errorMessage(err).slice(0, 500)).catch(() => undefined);
    } finally {
      store.running.delete(task.taskId);
    }
  })().catch((err: unknown) => log.debug({ err: errorMessage(err), task: task.taskId }, 'task result not stored (the task ended or expired)'));
  return { task };
}
