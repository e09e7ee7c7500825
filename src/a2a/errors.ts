import {
  A2AError,
  ContentTypeNotSupportedError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  InvalidAgentResponseError,
  PushNotificationNotSupportedError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from '@a2a-js/sdk/errors';
import { errorMessage } from '../core/errors.js';
import type { Decision } from '../core/types.js';
import { denialText, GUARD_DENIED_CODE, type DenialSubject } from '../proxy/denial.js';

/** The wire binding a caller used: the shape of errors differs (a JSON-RPC code, or an HTTP status). */
export type Binding = 'jsonrpc' | 'rest';

/**
 * A guard denial as an A2A error: the message is the one denial text of every surface (the rationale, what to do
 * instead, the decision id); over JSON-RPC its code is the proxy's guard-denied code (-32010, as resources/read and
 * prompts/get denials), over HTTP+JSON it is 403 with an `ErrorInfo` whose metadata carries the decision id and rules.
 */
export class GuardDeniedError extends A2AError {
  override readonly reason = 'QUADGUARD_DENIED';
  readonly envelopeCode = GUARD_DENIED_CODE;
  readonly statusCode = 403;
  constructor(
    readonly decision: Decision,
    subject: DenialSubject,
    readonly transport: Binding,
  ) {
    super({
      message: denialText(decision, subject),
      metadata: { decision: decision.decision, ...(decision.auditId ? { decisionId: decision.auditId } : {}), rules: decision.rules.join(','), source: decision.source },
    });
  }
}

/** The A2A errors an agent may answer with, rebuilt as the plain class so either binding shapes them as its own. */
const SEMANTIC = [
  TaskNotFoundError,
  TaskNotCancelableError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  InvalidAgentResponseError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  VersionNotSupportedError,
  RequestMalformedError,
];

/** An agent that could not be reached, or answered with something that is not A2A. */
export class AgentUnavailableError extends Error {
  constructor(agent: string, url: string, cause: unknown) {
    super(`QuadGuard: A2A agent "${agent}" at ${url} could not be reached (${causeText(cause)}); check that it is running, or a2a.agents.${agent}.url in the QuadGuard config.`);
  }
}

/**
 * What a caller is told when the call to the agent failed: the agent's own A2A error passed on as it is (task
 * not found, not cancelable, …), anything else (refused connection, timeout, a body that is not A2A) as a clear
 * error naming the agent.
 */
export function fromDownstream(agent: string, url: string, err: unknown): Error {
  if (err instanceof GuardDeniedError) return err;
  if (err instanceof A2AError) {
    for (const C of SEMANTIC) if (err instanceof C) return new C({ message: err.message, ...(err.metadata ? { metadata: err.metadata } : {}) });
    return err;
  }
  return new AgentUnavailableError(agent, url, err);
}

function causeText(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (err instanceof Error && err.name === 'TimeoutError') return 'timed out';
  return errorMessage(err);
}
