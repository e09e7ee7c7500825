import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ServerConfigSchema } from '../../src/config/schema.js';
import { realPathAnswersOf, sharingRealPaths, type RealPathAnswers } from '../../src/detectors/real-paths.js';
import { resolvePathArguments } from '../../src/proxy/resolved-paths.js';
import '../../src/detectors/path-name.js';
import { call, compile } from './helpers.js';

/**
 * One resolution of each path per interaction (src/detectors/real-paths.ts): the proxy's realpath answers are read by
 * the path detectors of the same check, held only while the check runs, and give the same answers as resolving
 * again; a real tree with links, the way the proxy resolves (resolvePathArguments) and the detectors read.
 */
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'qg-realpaths-')));
const box = join(dir, 'box');
const out = join(dir, 'out');
mkdirSync(join(box, 'sub'), { recursive: true });
mkdirSync(join(out, 'home', '.ssh'), { recursive: true });
writeFileSync(join(box, 'notes.txt'), 'n');
writeFileSync(join(out, 'home', '.ssh', 'id_rsa'), 'k');
symlinkSync(out, join(box, 'escape'));
symlinkSync(join(out, 'home', '.ssh', 'id_rsa'), join(box, 'key-link'));
symlinkSync(join(dir, 'nowhere', 'x'), join(box, 'dangling'));
symlinkSync(join(box, 'sub'), join(box, 'inner'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stdio = ServerConfigSchema.parse({ command: 'node' });
const outside = compile({ type: 'path', field: 'arguments', under: [box], outside: true });
const inside = compile({ type: 'path', field: 'arguments', under: [join(out, 'home')] });
const named = compile({ type: 'path_name', match: [`${out}/home/.ssh/id_*`, '**/.env'] });
const detectors = [outside, inside, named];

/** Answers that count how often they are read. */
class CountedAnswers extends Map<string, string | null> implements RealPathAnswers {
  reads = 0;
  override get(key: string): string | null | undefined {
    this.reads++;
    return super.get(key);
  }
}

const PATHS = [
  'notes.txt', 'sub/new.txt', 'escape/home/.ssh/id_rsa', 'key-link', 'dangling', 'inner/../notes.txt', 'escape/../box/notes.txt',
  join(box, 'notes.txt'), join(box, 'escape', 'home'), join(box, 'new', 'deeper', 'file.txt'), '../out/home/.ssh/id_rsa', '.env', '~/.ssh/id_rsa',
];

describe('realpath answers shared by the proxy and the path detectors', () => {
  it('the detectors of a check read the answers the proxy holds open, and only while they are open', async () => {
    const i = call({ path: 'notes.txt' }, { roots: [box], pathKeys: ['path'] });
    // An answer no file system would give: seen only if the detectors read the shared answers instead of resolving.
    const answers: RealPathAnswers = new Map([[join(box, 'notes.txt'), join(out, 'home', '.ssh', 'id_rsa')]]);
    expect(named(i).value).toBe('false');
    const shared = await sharingRealPaths(i, answers, () => {
      expect(realPathAnswersOf({ ...i, flow: { labels: [] } } as typeof i)).toBe(answers); // the stages' copies carry the arguments
      return detectors.map((d) => d(i).value);
    });
    expect(shared).toEqual(['true', 'true', 'true']);
    expect(realPathAnswersOf(i)).toBeUndefined();
    expect(detectors.map((d) => d(i).value)).toEqual(['false', 'false', 'false']);
  });

  it('the detectors read whether an unresolved path is a link from the answers too (one lstat per path and check)', async () => {
    const ghost = join(box, 'ghost.txt');
    const i = call({ path: ghost }, { roots: [box], pathKeys: ['path'] });
    // The proxy's resolution of a missing path keeps its lstat answer beside its realpath answer.
    const answers: RealPathAnswers = new Map();
    resolvePathArguments(stdio, { path: ghost }, ['path'], [box], answers);
    expect(answers.get(`\u0000${ghost}`)).toBeNull();
    // A link answer no file system would give: seen only if the detectors read it instead of asking lstat again.
    answers.set(`\u0000${ghost}`, join(out, 'home', '.ssh', 'id_rsa'));
    expect(await sharingRealPaths(i, answers, () => detectors.map((d) => d(i).value))).toEqual(['true', 'true', 'true']);
    expect(detectors.map((d) => d(i).value)).toEqual(['false', 'false', 'false']);
  });

  it('answers opened inside a check already holding some keep the outer ones, and let go only of their own', async () => {
    const i = call({ path: 'notes.txt' }, { roots: [box] });
    const outer: RealPathAnswers = new Map();
    await sharingRealPaths(i, outer, async () => {
      await sharingRealPaths(i, new Map(), () => expect(realPathAnswersOf(i)).toBe(outer));
      expect(realPathAnswersOf(i)).toBe(outer);
    });
    expect(realPathAnswersOf(i)).toBeUndefined();
  });

  it('gives every path detector the answer it gets alone, after the proxy resolved the call (one resolution per path)', async () => {
    for (const path of PATHS) {
      for (const roots of [[box], [box, join(box, 'sub')]]) {
        const args = { path, also: [join(box, 'inner', 'x.txt')] };
        const alone = detectors.map((d) => d(call(args, { roots, pathKeys: ['path'] })));
        const answers = new CountedAnswers();
        const pinned = resolvePathArguments(stdio, args, ['path'], roots, answers);
        // The proxy checks the arguments as it forwards them: resolved where a link was on the way.
        const i = call(pinned.args ?? args, { roots, pathKeys: ['path'] });
        const reference = detectors.map((d) => d(i));
        const [before, read] = [answers.size, answers.reads];
        const shared = await sharingRealPaths(i, answers, () => detectors.map((d) => d(i)));
        expect(shared, `${path} ${roots.length}`).toEqual(reference);
        if (pinned.resolved.length === 0) expect(shared, path).toEqual(alone);
        // The detectors read the proxy's answers, and resolved nothing it had resolved: where the proxy resolved the
        // path for one root, nothing is added (it leaves `~` paths and several roots' `..` walks to them).
        expect(answers.reads, path).toBeGreaterThan(read);
        if (pinned.resolved.length === 0 && roots.length === 1 && !path.startsWith('~') && !path.includes('..')) expect(answers.size, path).toBe(before);
      }
    }
  });
});
