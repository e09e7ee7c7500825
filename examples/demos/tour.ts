/**
 * The "tour" demo: `npx tsx examples/demos/tour.ts` (after `npm run build`), the same as `quadguard demo tour`.
 * With `--save`, the transcript is also written to examples/demos/tour.transcript.txt.
 */
import { fileURLToPath } from 'node:url';
import { runDemo } from '../../src/cli/demo.js';

const save = process.argv.includes('--save');
process.exitCode = await runDemo({ out: process.stdout, name: 'tour', ...(save ? { transcriptFile: fileURLToPath(new URL('./tour.transcript.txt', import.meta.url)) } : {}) });
