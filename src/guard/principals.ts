import { z } from 'zod';

/**
 * Principals (docs/data-flow.md, "Who a message goes to"). Message senders and recipients are identities. Every
 * agent acts for a principal, the person it works for (`user` unless the config says otherwise): a message between
 * an agent and its own principal is the agent taking a task or returning its work, not data passed to another
 * agent. Another agent receives private data only where the sender's config lists it in `share_private_with`.
 */

/** The principal of an agent the config does not describe, and of every agent in `quadguard eval` (`user`). */
export const DEFAULT_PRINCIPAL = 'user';

/** Per agent: whom it acts for, and which other agents may receive private data it read. */
export const AgentPrincipalSchema = z.strictObject({
  principal: z.string().min(1).default(DEFAULT_PRINCIPAL),
  share_private_with: z.array(z.string().min(1)).default([]),
});
export type AgentPrincipal = z.infer<typeof AgentPrincipalSchema>;

/** How a message's recipient stands to its sender. */
export type Audience = 'principal' | 'from_principal' | 'allowed_agent';

export class Principals {
  constructor(private readonly agents: Readonly<Record<string, AgentPrincipal>> = {}) {}

  principalOf(agent: string): string {
    return this.agents[agent]?.principal ?? DEFAULT_PRINCIPAL;
  }

  /** The recipient's standing: the sender's principal, the principal writing to its own agent, an agent allowed its data. */
  audience(sender: string, recipient: string): Audience | undefined {
    if (recipient === this.principalOf(sender)) return 'principal';
    if (sender === this.principalOf(recipient)) return 'from_principal';
    if (this.agents[sender]?.share_private_with.includes(recipient)) return 'allowed_agent';
    return undefined;
  }
}
