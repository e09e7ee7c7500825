import { describe, expect, it } from 'vitest';
import { loadBook } from '../../src/policy/load.js';

/**
 * The hashes signatures cover, pinned: taken with the two canonical-JSON functions the project had before they
 * became one (core/canonical.ts), so a change of canonical form (which would invalidate every signed book) fails
 * here. The default book is left out because its rules change with the product; these two are benchmarks' books.
 */
const PINNED: Record<string, string> = {
  'eicu-ac': '1078d9e1d645b1a74bc02ba46fc84d05070240153935920045c9adb45a5b1815',
  'mind2web-sc': '96d7027d8db8dc18d7ce32bca2e68534f6fca523e93ac4354a8f3bbf858bcd28',
};

describe('canonical book hashes', () => {
  it.each(Object.entries(PINNED))('%s keeps its hash', async (name, hash) => {
    const r = await loadBook(`policies/${name}`);
    expect(r.compiled?.hash).toBe(hash);
  });
});
