import { z } from 'zod';
import { defineDetector } from './registry.js';
import { configError, FieldSelectorSchema, fromFindings, cutOrNo, inspectedFields, MAX_SPANS, type Finding } from './common.js';
import type { DetectorResult } from './types.js';

/**
 * `url_domain`: the domains of URLs (and e-mail addresses) in the selected text against deny and allow lists —
 * use it for "external destination".
 *
 * - Extracts URLs with a scheme (`http`, `https`, `ftp`, `ftps`, `sftp`, `ws`, `wss`, `ssh`, `git`, `smtp`…);
 *   the host is taken both as WHATWG `URL` parses it and as the text after the last `@` of the authority, and
 *   both are checked, so `https://good.com\@evil.com` cannot smuggle either host past a list.
 * - `emails` (default true): also the domain of e-mail addresses (`a@b.example.org`).
 * - `deny`: true when any domain equals or is a sub-domain of an entry, on dot boundaries (`evil.com` matches
 *   `a.evil.com`, not `notevil.com`). Checked first.
 * - `allow`: when given, true when any domain is NOT covered by an entry (same suffix rule).
 * - At least one of `allow` / `deny` is required. Entries are host names or IP literals; a leading `*.` or `.`
 *   is accepted and means the same. Comparison is case-insensitive, trailing dots ignored.
 * - `field` (default `any`). No URL, no e-mail, or a missing field is `false`.
 *
 * Bare host names without a scheme (`evil.com/x`) are not extracted. Inspects every field to its end (16 MiB in all; beyond it, nothing found is `unknown`).
 *
 * @example { type: url_domain, field: arguments, allow: ['github.com', 'internal.example'] }
 */
export const UrlDomainOptionsSchema = z.strictObject({
  field: FieldSelectorSchema.default('any'),
  allow: z.array(z.string().min(1)).optional(),
  deny: z.array(z.string().min(1)).optional(),
  emails: z.boolean().default(true),
});
export type UrlDomainOptions = z.infer<typeof UrlDomainOptionsSchema>;

/** The punctuation that ends a sentence after a URL, not the URL: read from its first character only. */
export const URL_TRAILING_PUNCTUATION = /(?<![).,;:!?\]])[).,;:!?\]]+$/;
const URL_RE = /\b(?:https?|ftps?|sftp|wss?|ssh|git|smtp|imaps?|ldaps?):\/\/[^\s<>"'`{}|^]+/gi;
const EMAIL_RE = /(?<![\w.%+-])[A-Za-z0-9._%+-]{1,64}@((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?\.)+[A-Za-z]{2,63})(?![\w-])/g;
const HOST_RE = /^(?:[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?)*$|^[0-9.]+$|^\[?[0-9a-f:.]+\]?$/;

/** Lower-cased host without brackets or trailing dot. */
function normHost(h: string): string {
  return h.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/** Every host a URL could be taken to name (see the doc comment on why more than one). */
export function urlHosts(url: string): string[] {
  const hosts = new Set<string>();
  try {
    const h = new URL(url).hostname;
    if (h) hosts.add(normHost(h));
  } catch {
    // not WHATWG-parsable: the manual reading below still applies
  }
  const afterScheme = url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const authority = afterScheme.split(/[/?#]/, 1)[0] ?? '';
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const host = hostPort.startsWith('[') ? hostPort.slice(0, hostPort.indexOf(']') + 1) : hostPort.replace(/:\d*$/, '');
  if (host) hosts.add(normHost(host));
  return [...hosts];
}

/** True when `host` equals `entry` or is a sub-domain of it. */
function covered(host: string, entry: string): boolean {
  return host === entry || host.endsWith(`.${entry}`);
}

export const urlDomainDetector = defineDetector({
  type: 'url_domain',
  summary: 'true when a URL or e-mail domain is denied, or not in the allow list',
  options: UrlDomainOptionsSchema,
  create(opts, ctx) {
    if (opts.allow === undefined && opts.deny === undefined) throw configError(ctx, 'url_domain: give allow, deny or both');
    const norm = (list: string[] | undefined, name: string): string[] | undefined =>
      list?.map((e) => {
        const h = normHost(e.trim().replace(/^\*?\./, ''));
        if (!HOST_RE.test(h)) throw configError(ctx, `url_domain: ${name} entry "${e}" is not a domain or IP address`);
        return h;
      });
    const deny = norm(opts.deny, 'deny');
    const allow = norm(opts.allow, 'allow');
    const verdict = (host: string): string | undefined => {
      const d = deny?.find((e) => covered(host, e));
      if (d !== undefined) return `${host} is denied (${d})`;
      if (allow !== undefined && !allow.some((e) => covered(host, e))) return `${host} is not allowed`;
      return undefined;
    };
    const { field, emails } = opts;
    return function url_domain(i): DetectorResult {
      const findings: Finding[] = [];
      const fields = inspectedFields(i, field);
      for (const f of fields) {
        URL_RE.lastIndex = 0;
        for (const m of f.text.matchAll(URL_RE)) {
          const url = m[0].replace(URL_TRAILING_PUNCTUATION, '');
          for (const host of urlHosts(url)) {
            const why = verdict(host);
            if (why) {
              findings.push({ kind: 'url', field: f.field, start: m.index, end: m.index + url.length, shown: why });
              break;
            }
          }
          if (findings.length >= MAX_SPANS) break;
        }
        if (emails) {
          EMAIL_RE.lastIndex = 0;
          for (const m of f.text.matchAll(EMAIL_RE)) {
            const why = verdict(normHost(m[1] ?? ''));
            if (why) findings.push({ kind: 'email', field: f.field, start: m.index, end: m.index + m[0].length, shown: why });
            if (findings.length >= MAX_SPANS) break;
          }
        }
      }
      if (findings.length === 0) return cutOrNo('url_domain', fields);
      return fromFindings('url_domain', findings);
    };
  },
});
