import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../core/version.js';

/** Where `npm run build` puts the live view's browser script (scripts/bundle.ts, from src/ui/client/). */
export const LIVE_SCRIPT = join(PACKAGE_ROOT, 'dist', 'cli', 'live.js');

let cached: string | undefined;

/** The page's script, read once; an install without it (a clone not built) gets an error saying how to build. */
export function liveScript(): { ok: true; text: string } | { ok: false; error: string } {
  if (cached !== undefined) return { ok: true, text: cached };
  try {
    cached = readFileSync(LIVE_SCRIPT, 'utf8');
    return { ok: true, text: cached };
  } catch (err) {
    return { ok: false, error: `the live view's script ${LIVE_SCRIPT} cannot be read (${(err as Error).message}); run \`npm run build\`` };
  }
}
