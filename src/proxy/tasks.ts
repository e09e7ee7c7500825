import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallToolRequest, CallToolResult, CreateTaskResult } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../core/errors.js';
import type { ForwardExtra, ProxyCore, SessionContext } from './context.js';
import { SessionTaskStore } from './task-store.js';

/**
 * MCP tasks on the client side of the proxy (docs/proxying.md, "Tasks"). QuadGuard runs a task-augmented
 * tools/call as a task of its own: it answers at once with the task, then makes the call the usual way (guard on
 * the call, the server, guard on the result; a server tool that requires tasks is run as a task there) and stores
 * the checked result, which tasks/result returns. So a task's result is never one the guard did not see, and a
 * client's tasks/get, tasks/result, tasks/list and tasks/cancel are answered from the proxy's store (the SDK's
 * handlers) and only ever name its own tasks. One store per upstream session: a session sees only its tasks.
 */
export { SessionTaskStore };

/** What the proxy declares: task-augmented tools/call, tasks/list and tasks/cancel. */
export const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/**
 * Starts `call` (the proxy's guarded tools/call) as a task and returns the CreateTaskResult. The work outlives the
 * request: its server requests and progress go to the session without a related request, and it stops when the
 * client cancels the task.
 */
export async function startToolTask(
  core: ProxyCore,
  session: SessionContext,
  server: Server,
  store: SessionTaskStore,
  request: CallToolRequest,
  extra: ForwardExtra,
  call: (req: CallToolRequest, extra: ForwardExtra) => Promise<CallToolResult>,
): Promise<CreateTaskResult> {
  const taskStore = extra.taskStore;
  if (!taskStore) throw new Error('task-augmented tools/call without a task store');
  const ttl = request.params.task?.ttl;
  const task = await taskStore.createTask(ttl !== undefined ? { ttl } : {});
  const abort = new AbortController();
  store.running.set(task.taskId, abort);
  const background: ForwardExtra = {
    ...extra,
    signal: abort.signal,
    sendNotification: (n) => server.notification(n),
    sendRequest: (r, schema, opts) => server.request(r, schema, opts),
  };
  const { task: _task, ...params } = request.params;
  void (async () => {
    let result: CallToolResult;
    try {
      result = await call({ ...request, params }, background);
    } catch (err) {
      result = { isError: true, content: [{ type: 'text', text: `QuadGuard: the call to ${params.name} failed: ${errorMessage(err)}` }] };
    }
    try {
      // `completed` even for an error result (a denial): clients read a failed task's error, not its result, and the
      // denial's text is what tells the agent what to do instead.
      if (!abort.signal.aborted) await taskStore.storeTaskResult(task.taskId, 'completed', result);
    } catch (err) {
      core.logger.debug({ err: errorMessage(err), session: session.id, task: task.taskId }, 'task result not stored (the task ended or expired)');
    } finally {
      store.running.delete(task.taskId);
    }
  })();
  return { task };
}
