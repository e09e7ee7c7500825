import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every test file (and every CLI it spawns, which inherits the environment) gets its own $QUADGUARD_HOME, so a
// command that falls back to the default store never touches the real ~/.quadguard.
process.env.QUADGUARD_HOME = mkdtempSync(join(tmpdir(), 'qg-home-'));
