/**
 * The "rugpull" demo: `npx tsx examples/demos/rugpull.ts` (after `npm run build`), the same as `quadguard demo rugpull`.
 * With `--save`, the transcript is also written to examples/demos/rugpull.transcript.txt.
 */
import { fileURLToPath } from 'node:url';
import { runDemo } from '../../src/cli/demo.js';

const save = process.argv.includes('--save');
process.exitCode = await runDemo({ out: process.stdout, name: 'rugpull', ...(save ? { transcriptFile: fileURLToPath(new URL('./rugpull.transcript.txt', import.meta.url)) } : {}) });
