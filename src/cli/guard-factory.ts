import type { Config } from '../config/schema.js';
import type { Guard } from '../guard/types.js';
import type { Logger } from '../log.js';

/**
 * Builds the policy pipeline guard for a config. Placeholder seam: the four-part pipeline is not wired in yet,
 * so this returns undefined and only the per-server tool filter decides.
 */
export async function createGuardForConfig(config: Config, logger: Logger): Promise<Guard | undefined> {
  if (config.policy !== undefined) {
    logger.info({ policy: config.policy }, 'policy pipeline is not yet active; only the per-server tool allow/deny lists are enforced');
  }
  return undefined;
}
