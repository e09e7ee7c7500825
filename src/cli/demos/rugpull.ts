/**
 * `quadguard demo rugpull`: a downstream server changes a tool's definition after it was first seen (pinned and
 * so approved). The proxy hides the changed tool and its calls fail, until the operator reviews the change and
 * approves it with `quadguard tools approve`; the running proxy re-checks its pins and the tool comes back, with
 * no restart and no new listing from the server.
 */
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { bundledServer, connectStdio, defaultPolicy, demoDir, removeDir, runCli, waitUntil, writeDemoConfig } from './kit.js';
import { expectVerdict } from './tour.js';
import { callAndShow, type Transcript, demoOutcome } from './transcript.js';

const TOOL = 'weather__get_forecast';

async function forecastTool(client: Client) {
  return (await client.listTools()).tools.find((x) => x.name === TOOL);
}

/** Runs the demo; returns the exit code (1 when the proxy behaved unexpectedly). */
export async function runRugpull(t: Transcript): Promise<number> {
  const dir = demoDir('rugpull');
  t.sandbox(dir);
  const failures: string[] = [];
  const store = join(dir, 'state.db');
  const config = writeDemoConfig(dir, { servers: { weather: bundledServer('shifty') }, policy: defaultPolicy(), store });
  try {
    t.say('QuadGuard demo: a rug pull. The "weather" server changes its get_forecast tool after it was first seen.');
    const { client, close } = await connectStdio(config, 'assistant');
    try {
      t.heading('First sight: the definition is pinned in the store and the tool is listed');
      const first = await forecastTool(client);
      t.say(`   ${TOOL}: "${first?.description ?? '(missing)'}"`);
      if (!first) failures.push('get_forecast was not listed at first');
      expectVerdict(t, await callAndShow(t, client, 'assistant', TOOL, { city: 'Lisbon' }), 'allow', failures, 'the first forecast');

      t.heading('The server ships an update that changes get_forecast and announces tools/list_changed');
      await callAndShow(t, client, 'assistant', 'weather__deploy_update', {});
      await waitUntil(async () => (await forecastTool(client)) === undefined, 30_000, 'the changed tool to be hidden');
      t.say(`   tools/list now: ${(await client.listTools()).tools.map((x) => x.name).join(', ')}  (${TOOL} is hidden)`);
      // A hidden tool is an unknown tool: the call is refused before any guard or server sees it.
      const hidden = await callAndShow(t, client, 'assistant', TOOL, { city: 'Lisbon' });
      if (hidden.decision !== 'deny') failures.push('the rug-pulled tool could still be called');

      t.heading('The operator reviews the pending change and approves it');
      const pending = await runCli(['tools', 'list', '--pending', '--store', store]);
      // eslint-disable-next-line regexp/no-super-linear-move -- the demo's own CLI output
      t.say(`   $ quadguard tools list --pending → ${pending.stdout.trim().replace(/\s+\d{4}-\d\d-\d\dT[\d:.]+Z$/, '') || pending.stderr.trim()}`);
      const ok = await runCli(['tools', 'approve', TOOL, '--store', store, '--by', 'operator']);
      t.say(`   $ quadguard tools approve ${TOOL} → ${ok.stdout.trim() || ok.stderr.trim()}`);
      if (ok.code !== 0) failures.push('tools approve failed');

      t.heading('The running proxy re-checks its pins: the approved definition is listed again and the tool works');
      await waitUntil(async () => (await forecastTool(client)) !== undefined, 30_000, 'the approved tool to come back');
      t.say(`   ${TOOL}: "${(await forecastTool(client))?.description ?? '(missing)'}"`);
      expectVerdict(t, await callAndShow(t, client, 'assistant', TOOL, { city: 'Lisbon' }), 'allow', failures, 'the approved forecast');
    } finally {
      await close();
    }
  } finally {
    removeDir(dir);
  }
  return demoOutcome(t, failures);
}
