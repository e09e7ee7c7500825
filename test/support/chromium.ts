import { existsSync } from 'node:fs';
import { it } from 'vitest';

/** The headless Chromium the browser tests drive: `$CHROMIUM_PATH`, else Debian's or Ubuntu's package. */
export const CHROMIUM: string = process.env.CHROMIUM_PATH ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p)) ?? '/usr/bin/chromium';
export const hasChromium: boolean = existsSync(CHROMIUM);

/**
 * Without Chromium a browser test file cannot run: instead of skipping in silence, one test fails saying what is
 * missing and how to get it, unless `QUADGUARD_SKIP_BROWSER=1` says skipping is meant (then it is reported skipped).
 */
export function requireChromium(what: string): void {
  if (hasChromium) return;
  const message = `${what} need Chromium, and ${CHROMIUM} does not exist: apt-get install chromium (or set CHROMIUM_PATH); QUADGUARD_SKIP_BROWSER=1 skips them`;
  if (process.env.QUADGUARD_SKIP_BROWSER === '1') {
    it.skip(`${message} (skipped: QUADGUARD_SKIP_BROWSER=1)`, () => {});
    return;
  }
  process.stderr.write(`\n!!! ${message}\n\n`);
  it(`Chromium is installed (${what})`, () => {
    throw new Error(message);
  });
}
