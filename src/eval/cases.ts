import { z } from 'zod';
import { schemaCredentialKeys } from '../core/credential-fields.js';
import { ContentBlockSchema, ProfileSchema, type Interaction } from '../core/types.js';

/**
 * The evaluation case schema (`data/eval/SCHEMA.md`): one labeled interaction sequence per JSONL line, replayed
 * in order through a fresh guard, with one expected outcome for the whole case.
 *
 * Cases are files people write and convert, so the case, its steps and `expect` are strict objects: a misspelt key
 * (`argument` for `arguments`) is an error at load instead of a silently different case. `context` is loose on
 * purpose: only `agent` and `profile` mean something to the guard; any other key is informational.
 */

/** `message`: an inter-agent or user→agent message, as it would arrive through `guard_check_message`. */
export const MessageStepSchema = z.strictObject({
  kind: z.literal('message'),
  sender: z.string().min(1),
  recipient: z.string().min(1),
  content: z.string(),
});

/** `tool_call`: a call the agent makes to a downstream tool (no arguments means `{}`, as in MCP). */
export const ToolCallStepSchema = z.strictObject({
  kind: z.literal('tool_call'),
  server: z.string().min(1),
  tool: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
});

/** `tool_result`: what a downstream tool returned (MCP content blocks), inspected before the agent sees it. */
export const ToolResultStepSchema = z.strictObject({
  kind: z.literal('tool_result'),
  server: z.string().min(1),
  tool: z.string().min(1),
  content: z.array(ContentBlockSchema),
});

/** `resource_request`: a read request for a downstream resource. `resource_read` is its older name, still accepted. */
export const ResourceRequestStepSchema = z.strictObject({
  kind: z.enum(['resource_request', 'resource_read']),
  server: z.string().min(1),
  uri: z.string().min(1),
});

/** `resource_result`: the contents a resource read returned (MCP content blocks, e.g. embedded resources). */
export const ResourceResultStepSchema = z.strictObject({
  kind: z.literal('resource_result'),
  server: z.string().min(1),
  uri: z.string().min(1),
  content: z.array(ContentBlockSchema),
});

/** `prompt_request`: a prompts/get of a downstream prompt with its arguments (none means `{}`). */
export const PromptRequestStepSchema = z.strictObject({
  kind: z.literal('prompt_request'),
  server: z.string().min(1),
  prompt: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
});

/** `prompt_result`: the messages' content blocks a prompts/get returned. */
export const PromptResultStepSchema = z.strictObject({
  kind: z.literal('prompt_result'),
  server: z.string().min(1),
  prompt: z.string().min(1),
  content: z.array(ContentBlockSchema),
});

/** One step of a case, discriminated by `kind`. */
export const StepSchema = z.discriminatedUnion('kind', [
  MessageStepSchema,
  ToolCallStepSchema,
  ToolResultStepSchema,
  ResourceRequestStepSchema,
  ResourceResultStepSchema,
  PromptRequestStepSchema,
  PromptResultStepSchema,
]);
export type Step = z.infer<typeof StepSchema>;
export type StepKind = Step['kind'];

/** One tool of the session's catalogue, as a server would list it (docs/eval-cases.md, `context.tools`). */
export const CaseToolSchema = z.strictObject({
  server: z.string().min(1),
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
});
export type CaseTool = z.infer<typeof CaseToolSchema>;

/** Facts about the session: the acting agent, the user attributes rules may read, and informational extras. */
export const CaseContextSchema = z.looseObject({
  agent: z.string().min(1).optional(),
  profile: ProfileSchema.optional(),
  /**
   * The tools the session's servers list (what the proxy would learn from tools/list). Absent: the tools the
   * case's steps call, by name only.
   */
  tools: z.array(CaseToolSchema).max(10_000).optional(),
});

/** The session's tool catalogue of a case: `context.tools`, or else the tools its steps call. */
export function caseCatalogue(evalCase: { context: CaseContext; steps: readonly Step[] }): Map<string, CaseTool[]> {
  const byServer = new Map<string, CaseTool[]>();
  const seen = new Set<string>();
  const tools: CaseTool[] =
    evalCase.context.tools ??
    evalCase.steps.flatMap((s) => (s.kind === 'tool_call' || s.kind === 'tool_result' ? [{ server: s.server, name: s.tool }] : []));
  for (const t of tools) {
    const key = `${t.server}__${t.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    let list = byServer.get(t.server);
    if (!list) byServer.set(t.server, (list = []));
    list.push(t);
  }
  return byServer;
}
export type CaseContext = z.infer<typeof CaseContextSchema>;

/** A case-level outcome: the expected one, or what the guard decided. */
export const DecisionLabelSchema = z.enum(['allow', 'deny']);
export type DecisionLabel = z.infer<typeof DecisionLabelSchema>;

/** The expected outcome of a whole case; `rules` lists rule ids that should be among those violated. */
export const ExpectSchema = z.strictObject({
  decision: DecisionLabelSchema,
  rules: z.array(z.string().min(1)).optional(),
});

/** One evaluation case: a JSONL line of `data/eval/SCHEMA.md`. */
export const EvalCaseSchema = z.strictObject({
  id: z.string().min(1),
  suite: z.string().min(1),
  /** Name of a policy book under `policies/` (`default`, `eicu-ac`, `mind2web-sc`, …). */
  policy: z.string().min(1),
  context: CaseContextSchema.default({}),
  steps: z.array(StepSchema).min(1),
  expect: ExpectSchema,
});
export type EvalCase = z.infer<typeof EvalCaseSchema>;

/** Agent identity used when a case's context names none. */
export const DEFAULT_AGENT = 'agent';

/**
 * Converts one case step into the `Interaction` the guard sees. Every step of a case shares the agent
 * (`context.agent`, else `agent`), the profile (`context.profile`, else `{}`) and the case's session id, so
 * sticky predicates and threat scores carry from step to step within the case.
 *
 * @example
 * const i = stepToInteraction(c, c.steps[0], 'eval-1');
 * const decision = await guard.check(i);
 */
export function stepToInteraction(evalCase: EvalCase, step: Step, session: string): Interaction {
  const base = {
    agent: evalCase.context.agent ?? DEFAULT_AGENT,
    session,
    profile: evalCase.context.profile ?? {},
  };
  switch (step.kind) {
    case 'message':
      return { ...base, kind: 'message', sender: step.sender, recipient: step.recipient, content: step.content };
    case 'tool_call': {
      // As the proxy does from the server's listing: the fields the tool's schema marks as credentials.
      const credentialKeys = schemaCredentialKeys(evalCase.context.tools?.find((t) => t.server === step.server && t.name === step.tool)?.inputSchema);
      return { ...base, kind: 'tool_call', server: step.server, tool: step.tool, arguments: step.arguments, ...(credentialKeys.length > 0 ? { credentialKeys } : {}) };
    }
    case 'tool_result':
      return { ...base, kind: 'tool_result', server: step.server, tool: step.tool, content: step.content };
    case 'resource_request':
    case 'resource_read':
      return { ...base, kind: 'resource_request', server: step.server, uri: step.uri };
    case 'resource_result':
      return { ...base, kind: 'resource_result', server: step.server, uri: step.uri, content: step.content };
    case 'prompt_request':
      return { ...base, kind: 'prompt_request', server: step.server, prompt: step.prompt, arguments: step.arguments };
    case 'prompt_result':
      return { ...base, kind: 'prompt_result', server: step.server, prompt: step.prompt, content: step.content };
  }
}

function blocksText(blocks: ReadonlyArray<{ type: string; text?: unknown }>): string {
  return blocks.map((b) => (typeof b.text === 'string' ? b.text : `[${b.type}]`)).join(' ');
}

/** One-line, length-capped description of a step for reports (`tool_call ehr/run_sql {"sql":"…"}`). */
export function summarizeStep(step: Step, max = 1500): string {
  let text: string;
  switch (step.kind) {
    case 'message':
      text = `message ${step.sender} → ${step.recipient}: ${step.content}`;
      break;
    case 'tool_call':
      text = `tool_call ${step.server}/${step.tool} ${JSON.stringify(step.arguments)}`;
      break;
    case 'tool_result':
      text = `tool_result ${step.server}/${step.tool}: ${blocksText(step.content)}`;
      break;
    case 'resource_request':
    case 'resource_read':
      text = `${step.kind} ${step.server} ${step.uri}`;
      break;
    case 'resource_result':
      text = `resource_result ${step.server} ${step.uri}: ${blocksText(step.content)}`;
      break;
    case 'prompt_request':
      text = `prompt_request ${step.server}/${step.prompt} ${JSON.stringify(step.arguments)}`;
      break;
    case 'prompt_result':
      text = `prompt_result ${step.server}/${step.prompt}: ${blocksText(step.content)}`;
      break;
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
