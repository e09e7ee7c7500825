/**
 * The "travel" demo: `npx tsx examples/demos/travel.ts` (after `npm run build`), the same as `quadguard demo travel`.
 * With `--save`, the transcript is also written to examples/demos/travel.transcript.txt.
 */
import { fileURLToPath } from 'node:url';
import { runDemo } from '../../src/cli/demo.js';

const save = process.argv.includes('--save');
process.exitCode = await runDemo({ out: process.stdout, name: 'travel', ...(save ? { transcriptFile: fileURLToPath(new URL('./travel.transcript.txt', import.meta.url)) } : {}) });
