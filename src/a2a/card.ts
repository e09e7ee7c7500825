import type { AgentCard, AgentSkill } from '@a2a-js/sdk';

/** Screens of what a card shows a caller's model (the tool screen's, guard/tool-screen.ts); absent without a policy. */
export interface CardScreen {
  /** The skills to show: one whose name, description, tags or examples carry injected instructions is hidden. */
  skills(server: string, skills: AgentSkill[]): Promise<AgentSkill[]>;
  /** The card's description as shown, or why it was withheld. */
  description(server: string, text: string): Promise<{ text: string } | { withheld: string }>;
}

/** The security scheme name QuadGuard's cards use for its bearer token. */
export const QUADGUARD_SCHEME = 'quadguard';

export interface CardOptions {
  /** The agent's name in the config (its path segment). */
  name: string;
  /** Where callers reach QuadGuard (`http://host:port`, no trailing slash). */
  base: string;
  /** Whether callers must present a bearer token (agent tokens are configured). */
  authenticated: boolean;
  /** Whether push notifications may be configured for this agent (a2a.agents.<name>.push_notifications). */
  pushNotifications: boolean;
  /** Whether v0.3 callers are accepted. */
  v0_3: boolean;
  screen?: CardScreen | undefined;
}

/** The path of an agent's JSON-RPC endpoint on QuadGuard; its HTTP+JSON endpoint is under `/rest`. */
export function agentPath(name: string): string {
  return `/a2a/${name}`;
}

/**
 * The downstream agent's card as QuadGuard serves it: its interfaces point at QuadGuard (JSON-RPC first, then
 * HTTP+JSON; v0.3 as well when accepted; no gRPC, which QuadGuard does not serve), its security names QuadGuard's
 * bearer scheme instead of the agent's own (QuadGuard holds the agent's credentials), push notifications are
 * offered only when configured, the extended card is not offered, the signatures are dropped (they sign the
 * agent's card, not this one), and the skills and description are screened as tool descriptions are.
 */
export async function rewriteCard(card: AgentCard, o: CardOptions): Promise<AgentCard> {
  const url = `${o.base}${agentPath(o.name)}`;
  const iface = (protocolBinding: string, protocolVersion: string, at: string) => ({ url: at, protocolBinding, protocolVersion, tenant: '' });
  const supportedInterfaces = [iface('JSONRPC', '1.0', url), iface('HTTP+JSON', '1.0', `${url}/rest`)];
  if (o.v0_3) supportedInterfaces.push(iface('JSONRPC', '0.3', url), iface('HTTP+JSON', '0.3', `${url}/rest`));
  const skills = card.skills.map((s) => ({ ...s, securityRequirements: [] }));
  const description = o.screen ? await o.screen.description(o.name, card.description) : { text: card.description };
  return {
    ...card,
    description: 'text' in description ? description.text : `[description withheld by QuadGuard: ${description.withheld}]`,
    supportedInterfaces,
    capabilities: {
      extensions: card.capabilities?.extensions ?? [],
      streaming: card.capabilities?.streaming === true,
      pushNotifications: o.pushNotifications && card.capabilities?.pushNotifications === true,
      extendedAgentCard: false,
    },
    securitySchemes: o.authenticated
      ? {
          [QUADGUARD_SCHEME]: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { scheme: 'Bearer', bearerFormat: '', description: 'The calling agent\'s QuadGuard token (agents.<name>.token in the QuadGuard config).' },
            },
          },
        }
      : {},
    securityRequirements: o.authenticated ? [{ schemes: { [QUADGUARD_SCHEME]: { list: [] } } }] : [],
    skills: o.screen ? await o.screen.skills(o.name, skills) : skills,
    signatures: [],
  };
}
