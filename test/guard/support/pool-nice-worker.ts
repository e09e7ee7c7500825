import { readFileSync } from 'node:fs';

/** Its thread's nice value (field 19 of /proc/thread-self/stat), whatever it is sent: what the pool's worker script left it at. */
export function poolHandler(): () => number {
  return () => threadNice('/proc/thread-self/stat');
}

/** The nice value in a thread's `stat` (after the name in parentheses, which may hold spaces, it is the 17th field). */
export function threadNice(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}
