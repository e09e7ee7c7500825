import type { Interaction } from '../../src/core/types.js';
import { LlmClient, type LlmClientOptions } from '../../src/llm/client.js';
import type { LlmConfigInput } from '../../src/llm/config.js';
import type { ScriptedLlmServer } from '../support/scripted-llm-server.js';

/** A client pointed at the scripted server, with fast back-off and pinned jitter. */
export function clientFor(server: ScriptedLlmServer, config: Partial<LlmConfigInput> = {}, options: LlmClientOptions = {}): LlmClient {
  return new LlmClient(
    {
      base_url: server.baseUrl,
      models: { light: 'light-m', strong: 'strong-m', embedding: 'embed-m' },
      timeout_ms: 2000,
      max_retries: 2,
      ...config,
    },
    { env: {}, retryBaseMs: 2, retryMaxMs: 50, random: () => 0.5, ...options },
  );
}

/** A tool call interaction. */
export function toolCall(args: Record<string, unknown>, tool = 'send_email'): Interaction {
  return { kind: 'tool_call', agent: 'agent-a', session: 's1', profile: {}, server: 'mail', tool, arguments: args };
}

/** The parsed user message of a recorded chat request. */
export function userJson(body: any): any {
  return JSON.parse(body.messages[1].content);
}
