import type {
  AgentCard,
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  Message,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
  Task,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import type { RequestOptions } from '@a2a-js/sdk/client';
import { ExtendedAgentCardNotConfiguredError, PushNotificationNotSupportedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext, User } from '@a2a-js/sdk/server';
import { a2aAnswerServer } from '../core/flow.js';
import type { Decision, Guard, Interaction, Profile } from '../core/types.js';
import type { Logger } from '../core/log.js';
import type { DecisionRecorder } from '../proxy/context.js';
import { decide } from '../proxy/decide.js';
import type { A2ADownstream } from './downstream.js';
import { AgentUnavailableError, fromDownstream, GuardDeniedError, type Binding } from './errors.js';
import { read, type A2AReading } from './read.js';
import { StreamedArtifacts } from './stream-text.js';

/** The calling agent, as the HTTP front end's bearer authentication proved it. */
export class Caller implements User {
  constructor(
    readonly agent: string,
    readonly authenticated: boolean,
  ) {}
  /**
   * One per A2A request, never aborted: every check and record of the request passes it, so a reload in the middle
   * keeps the request on the guard it started with (`LiveGuard`).
   */
  readonly request: AbortSignal = new AbortController().signal;
  get isAuthenticated(): boolean {
    return this.authenticated;
  }
  get userName(): string {
    return this.agent;
  }
}

/** What the guarded handlers share: the proxy's one guard, its recorder, the logger and the agents' profiles. */
export interface A2AGuardDeps {
  guard: Guard;
  record?: DecisionRecorder;
  logger: Logger;
  profileOf(agent: string): Profile;
}

/** The server key answers of agent `name` are recorded under (`a2a:<name>`), apart from any MCP server's. */
export const answerServer = a2aAnswerServer;

/**
 * The A2A request handler QuadGuard serves for one downstream agent and one binding (the SDK's JSON-RPC and
 * HTTP+JSON transports call it, v0.3 callers through their compatibility layer). Both directions are guard
 * interactions (docs/a2a.md):
 *
 * - what a caller sends (SendMessage, SendStreamingMessage) is a `message` from the caller's identity to the agent,
 *   every field read (`read.ts`); a denial is an A2A error and the agent never sees the message;
 * - what the agent answers (a message, a task with its status message, artifacts and history, a task list, each
 *   stream event) is a `tool_result` of server `a2a:<name>` and tool the method name: a denial withholds it (a
 *   stream is cut at that event), a redaction is written back into the fields it masked.
 */
export class GuardedAgentHandler implements A2ARequestHandler {
  constructor(
    private readonly deps: A2AGuardDeps,
    private readonly agent: A2ADownstream,
    private readonly binding: Binding,
    /** The card as served (interfaces, capabilities), for the SDK's version and capability checks. */
    private readonly servedCard: () => Promise<AgentCard>,
  ) {}

  getAgentCard(): Promise<AgentCard> {
    return this.servedCard();
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(new ExtendedAgentCardNotConfiguredError('QuadGuard does not serve extended agent cards: the card at /.well-known/agent-card.json is the whole card.'));
  }

  async sendMessage(params: SendMessageRequest, ctx: ServerCallContext): Promise<Message | Task> {
    const caller = callerOf(ctx);
    await this.checkSend(caller, params);
    const result = await this.call((client, opts) => client.sendMessage(params, opts));
    this.agent.own('messageId' in result ? result.taskId : result.id, caller.agent);
    return this.checkAnswer(caller, 'SendMessage', sessionOf(caller, this.agent.name, contextOfResult(result)), read().result(result), result);
  }

  async *sendMessageStream(params: SendMessageRequest, ctx: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const caller = callerOf(ctx);
    await this.checkSend(caller, params);
    yield* this.guardStream(caller, 'SendStreamingMessage', params.message?.contextId ?? '', (client) => client.sendMessageStream(params));
  }

  async getTask(params: GetTaskRequest, ctx: ServerCallContext): Promise<Task> {
    const caller = callerOf(ctx);
    this.mustOwn(params.id, caller);
    const task = await this.call((client, opts) => client.getTask(params, opts));
    return this.checkAnswer(caller, 'GetTask', sessionOf(caller, this.agent.name, task.contextId), read().task(task), task);
  }

  async cancelTask(params: CancelTaskRequest, ctx: ServerCallContext): Promise<Task> {
    const caller = callerOf(ctx);
    this.mustOwn(params.id, caller);
    const task = await this.call((client, opts) => client.cancelTask(params, opts));
    return this.checkAnswer(caller, 'CancelTask', sessionOf(caller, this.agent.name, task.contextId), read().task(task), task);
  }

  async listTasks(params: ListTasksRequest, ctx: ServerCallContext): Promise<ListTasksResponse> {
    const caller = callerOf(ctx);
    const all = await this.call((client, opts) => client.listTasks(params, opts));
    // Other callers' tasks are left out (the page's sizes are the agent's).
    const list = { ...all, tasks: all.tasks.filter((t) => this.agent.mayUse(t.id, caller.agent)) };
    return this.checkAnswer(caller, 'ListTasks', sessionOf(caller, this.agent.name, params.contextId), read().taskList(list), list);
  }

  async *resubscribe(params: SubscribeToTaskRequest, ctx: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    this.mustOwn(params.id, callerOf(ctx));
    yield* this.guardStream(callerOf(ctx), 'SubscribeToTask', '', (client) => client.resubscribeTask(params));
  }

  async createTaskPushNotificationConfig(params: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    this.pushAllowed();
    return this.call((client, opts) => client.createTaskPushNotificationConfig(params, opts));
  }

  async getTaskPushNotificationConfig(params: GetTaskPushNotificationConfigRequest): Promise<TaskPushNotificationConfig> {
    this.pushAllowed();
    return this.call((client, opts) => client.getTaskPushNotificationConfig(params, opts));
  }

  async listTaskPushNotificationConfigs(params: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    this.pushAllowed();
    return this.call((client, opts) => client.listTaskPushNotificationConfig(params, opts));
  }

  async deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    this.pushAllowed();
    await this.call((client, opts) => client.deleteTaskPushNotificationConfig(params, opts));
  }

  /** A webhook the agent would call is a route out of the guard's sight: refused unless the config allows it. */
  private pushAllowed(): void {
    if (this.agent.config.push_notifications) return;
    throw new PushNotificationNotSupportedError(
      `QuadGuard refuses push notifications for A2A agent "${this.agent.name}": a webhook sends the agent's answers where the guard does not read them. Poll with GetTask or stream instead, or set a2a.agents.${this.agent.name}.push_notifications: true in the QuadGuard config.`,
    );
  }

  /** A task another caller created is not found for this one (the agent sees one client, QuadGuard, for all). */
  private mustOwn(taskId: string, caller: Caller): void {
    if (!this.agent.mayUse(taskId, caller.agent)) throw new TaskNotFoundError(`Task ${taskId} not found`);
  }

  /** The caller's send as a `message` to the agent; throws the denial (the agent never sees a refused message). */
  private async checkSend(caller: Caller, params: SendMessageRequest): Promise<void> {
    if (params.configuration?.taskPushNotificationConfig) this.pushAllowed();
    const blocks = read().request(params).blocks;
    const session = sessionOf(caller, this.agent.name, params.message?.contextId ?? '');
    const interaction: Interaction = { kind: 'message', agent: caller.agent, session, profile: this.deps.profileOf(caller.agent), sender: caller.agent, recipient: this.agent.name, content: blocks };
    const d = await this.ask(caller, interaction);
    if (d.decision === 'deny') {
      this.deps.logger.info({ agent: caller.agent, recipient: this.agent.name, rules: d.rules, auditId: d.auditId }, 'a2a message denied');
      throw new GuardDeniedError(d, { what: 'message to A2A agent', name: this.agent.name }, this.binding);
    }
  }

  /** The agent's answer as its result: withheld (thrown) on a denial, its masked fields written back on a redaction. */
  private async checkAnswer<T>(caller: Caller, method: string, session: string, reading: A2AReading, answer: T): Promise<T> {
    const interaction: Interaction = {
      kind: 'tool_result',
      agent: caller.agent,
      session,
      profile: this.deps.profileOf(caller.agent),
      server: answerServer(this.agent.name),
      tool: method,
      content: reading.blocks,
    };
    let d = await this.ask(caller, interaction);
    if (d.decision === 'allow' && d.replacement !== undefined) {
      try {
        reading.applyReplacement(d.replacement);
      } catch (err) {
        d = { ...d, decision: 'deny', rationale: `the answer asks for redaction, but the masked text could not be written back into its fields (${(err as Error).message}), so it is withheld (fail closed).` };
      }
    }
    if (d.decision === 'deny') {
      this.deps.logger.info({ agent: caller.agent, from: this.agent.name, method, rules: d.rules, auditId: d.auditId }, 'a2a answer withheld');
      throw new GuardDeniedError(d, { what: `answer of A2A agent ${this.agent.name} to`, name: method }, this.binding);
    }
    return answer;
  }

  /**
   * Passes a stream's events on one at a time, each checked before it is passed on; the first one denied ends the
   * stream there with the denial (an error event), and the rest of the agent's stream is not read. A chunk appended
   * to a streamed artifact is read with the artifact's text so far (`stream-text.ts`).
   */
  private async *guardStream(caller: Caller, method: string, contextId: string, open: (client: Awaited<ReturnType<A2ADownstream['connect']>>['client']) => AsyncGenerator<StreamResponse, void, undefined>): AsyncGenerator<StreamResponse, void, undefined> {
    const { client } = await this.connect();
    const upstream = open(client);
    const artifacts = new StreamedArtifacts();
    let context = contextId;
    try {
      while (true) {
        let next: IteratorResult<StreamResponse, void>;
        try {
          next = await upstream.next();
        } catch (err) {
          throw this.failed(err);
        }
        if (next.done) return;
        const event = next.value;
        context = contextOfEvent(event) || context;
        this.agent.own(taskOfEvent(event), caller.agent);
        const reading = read().event(event);
        const soFar = artifacts.follow(event);
        if (soFar) reading.streamedSoFar(soFar);
        yield await this.checkAnswer(caller, method, sessionOf(caller, this.agent.name, context), reading, event);
      }
    } finally {
      // Stops reading the agent's stream when the caller went away or an event was withheld.
      void upstream.return(undefined).catch(() => {});
    }
  }

  private async connect() {
    try {
      return await this.agent.connect();
    } catch (err) {
      throw this.failed(err);
    }
  }

  /** A call to the agent with the per-request timeout; its failure as the caller should see it. */
  private async call<T>(fn: (client: Awaited<ReturnType<A2ADownstream['connect']>>['client'], opts: RequestOptions) => Promise<T>): Promise<T> {
    const { client } = await this.connect();
    try {
      return await fn(client, { signal: AbortSignal.timeout(this.agent.config.timeout_ms) });
    } catch (err) {
      throw this.failed(err);
    }
  }

  private failed(err: unknown): Error {
    const e = fromDownstream(this.agent.name, this.agent.config.url, err);
    if (e instanceof AgentUnavailableError) this.agent.reset();
    return e;
  }

  private async ask(caller: Caller, i: Interaction): Promise<Decision> {
    return decide(this.deps, i, caller.request);
  }
}

function callerOf(ctx: ServerCallContext): Caller {
  const u = ctx.user;
  if (u instanceof Caller) return u;
  // The routes always build a Caller; anything else is a wiring error, refused rather than guessed.
  throw new Error('QuadGuard: the A2A request carries no authenticated caller');
}

/** The guard's session of a caller's exchange with an agent: one per A2A context (conversation). */
function sessionOf(caller: Caller, agent: string, contextId: string | undefined): string {
  return `a2a:${caller.agent}:${agent}:${contextId || 'none'}`;
}

function contextOfResult(r: Message | Task): string {
  return r.contextId;
}

function taskOfEvent(e: StreamResponse): string {
  const p = e.payload;
  if (!p) return '';
  if (p.$case === 'task') return p.value.id;
  return p.value.taskId;
}

function contextOfEvent(e: StreamResponse): string {
  const p = e.payload;
  if (!p) return '';
  if (p.$case === 'task' || p.$case === 'message') return p.value.contextId;
  return p.value.contextId;
}
