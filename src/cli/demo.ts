import { existsSync, writeFileSync } from 'node:fs';
import { runExfiltration } from './demos/exfiltration.js';
import { cliEntry } from './demos/kit.js';
import { runRugpull } from './demos/rugpull.js';
import { runTour } from './demos/tour.js';
import { Transcript } from './demos/transcript.js';
import { runTravel } from './demos/travel.js';

export { bundledServer, cliEntry } from './demos/kit.js';
export { firstText, Transcript, verdictOf } from './demos/transcript.js';

/**
 * `quadguard demo [name]`: runs one scenario against real child processes (the built CLI as the proxy, the
 * bundled servers behind it) and prints a transcript a person can follow. Without a name it runs the tour:
 * the default policy in front of the workspace and mail servers, with allowed and denied calls.
 */
export const DEMOS = {
  tour: { run: runTour, about: 'the default policy in front of the workspace and mail servers: allowed and denied calls' },
  travel: { run: runTravel, about: 'planner, research and vendor agents over HTTP; the vendor injects and is quarantined' },
  exfiltration: { run: runExfiltration, about: 'an injected e-mail and a read-then-exfiltrate attempt, both stopped' },
  rugpull: { run: runRugpull, about: 'a tool changes after approval, is hidden, approved by the operator, and returns' },
} as const;
export type DemoName = keyof typeof DEMOS;

/** Whether `name` is a demo. */
export function isDemoName(name: string): name is DemoName {
  return Object.hasOwn(DEMOS, name);
}

/**
 * Runs a demo and writes its transcript to `out` (and, with `transcriptFile`, to that file); returns the exit
 * code: 0 when the guard decided as the scenario expects, 1 otherwise, 2 for an unknown name.
 */
export async function runDemo({ out, name = 'tour', transcriptFile }: { out: NodeJS.WritableStream; name?: string; transcriptFile?: string }): Promise<number> {
  if (!isDemoName(name)) {
    out.write(`unknown demo "${name}"; choose one of: ${Object.keys(DEMOS).join(', ')}\n`);
    return 2;
  }
  if (!existsSync(cliEntry())) {
    out.write(`quadguard demo needs a build first: npm run build (missing ${cliEntry()})\n`);
    return 1;
  }
  const t = new Transcript(out);
  const code = await DEMOS[name].run(t);
  if (transcriptFile) writeFileSync(transcriptFile, t.text());
  return code;
}
