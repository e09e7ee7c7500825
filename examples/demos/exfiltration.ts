/**
 * The "exfiltration" demo: `npx tsx examples/demos/exfiltration.ts` (after `npm run build`), the same as `quadguard demo exfiltration`.
 * With `--save`, the transcript is also written to examples/demos/exfiltration.transcript.txt.
 */
import { fileURLToPath } from 'node:url';
import { runDemo } from '../../src/cli/demo.js';

const save = process.argv.includes('--save');
process.exitCode = await runDemo({ out: process.stdout, name: 'exfiltration', ...(save ? { transcriptFile: fileURLToPath(new URL('./exfiltration.transcript.txt', import.meta.url)) } : {}) });
