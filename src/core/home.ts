import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** `$QUADGUARD_HOME`, else `~/.quadguard`: where state lives when no config says otherwise. */
export function quadguardHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.QUADGUARD_HOME;
  return home && home.length > 0 ? resolve(home) : join(homedir(), '.quadguard');
}
