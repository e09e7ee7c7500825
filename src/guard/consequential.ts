import type { CapabilityLabel, LabelOrigin } from '../core/flow.js';
import { nameWords } from './capabilities.js';

/**
 * Consequential actions (docs/provenance.md): what a tool call does that a person would want to have asked for
 * themselves. From the tool's capability labels (config, book, annotations); a tool nobody labelled is judged by
 * what its own name declares: a name whose verb reads (get, list, search…) is not consequential, one whose verb
 * acts is, classified by that verb.
 */

export const CONSEQUENTIAL_LABELS: ReadonlySet<CapabilityLabel> = new Set([
  'external_send',
  'public_sink',
  'payment',
  'access_grant',
  'account_change',
  'code_execution',
  'deletion',
]);
// Not `file_write`: reading a README or a page and then writing files is what coding agents do all day, and a write
// is judged by where it goes (the book's sandbox and public-place rules), not by who mentioned writing.

const VERBS: ReadonlyArray<[CapabilityLabel, RegExp]> = [
  ['payment', /^(?:pay|payment|payments|transfer|transfers|withdraw|deposit|purchase|buy|sell|trade|order|checkout|refund|donate|tip|money|transaction|invest|swap|mint)$/],
  ['access_grant', /^(?:grant|share|invite|permission|permissions|authorize|authorise|unlock|access|guest|member|collaborator)$/],
  ['account_change', /^(?:password|passwords|credential|credentials|2fa|recovery|reset)$/],
  ['code_execution', /^(?:exec|execute|run|terminal|shell|command|script|eval|evaluate|deploy|install)$/],
  ['deletion', /^(?:delete|remove|erase|destroy|wipe|drop|purge|revoke|cancel|uninstall|unsubscribe)$/],
  [
    'external_send',
    /^(?:send|post|reply|forward|publish|tweet|retweet|upload|create|update|edit|modify|manage|set|add|schedule|move|copy|write|change|give|book|enable|disable|lock|control|start|stop|submit|sign|approve|apply|invoke|call|dial|generate|follow|like|comment|message|notify|assign|register|make|place|put|patch|upsert|insert)$/,
  ],
];
/** Words of the lists above that are as often nouns (a product's or an object's name) as verbs. */
const NOUNISH = /^(?:access|guest|member|money|transaction|lock|message|comment|order|like|call|control|book|set|make|place|command|terminal|shell|script|password|passwords|credential|credentials|payment|payments|permission|permissions|collaborator|recovery)$/;
const READ_VERB = /^(?:get|list|read|search|find|view|fetch|query|check|lookup|retrieve|show|describe|download|browse|open|navigate|inspect|analyze|analyse|count|compute|calculate|convert|translate|summarize|summarise|preview|peek|status|history|watch|scan|detect|verify)$/;


/** The consequential classes of a tool name alone (for unlabelled tools). */
export function consequentialByName(tool: string): CapabilityLabel[] {
  const words = nameWords(tool);
  const acts = new Set<CapabilityLabel>();
  for (const w of words) for (const [label, re] of VERBS) if (re.test(w)) acts.add(label);
  if (acts.size === 0) return [];
  // `get_access_history`, `SmartLockViewAccessHistory`: a read verb before any verb that acts names a read of those
  // things (words that are also nouns, like lock or access, do not count as acting here).
  const read = words.findIndex((w) => READ_VERB.test(w));
  const act = words.findIndex((w) => !NOUNISH.test(w) && VERBS.some(([, re]) => re.test(w)));
  if (read >= 0 && (act < 0 || read < act)) return [];
  return [...acts];
}

/** The consequential classes of a tool: from its labels, or from its name when nobody labelled it. */
export function consequentialOf(labels: readonly CapabilityLabel[], origin: LabelOrigin | undefined, tool: string): CapabilityLabel[] {
  if (origin === 'unlabelled') return consequentialByName(tool);
  const fromLabels = labels.filter((l) => CONSEQUENTIAL_LABELS.has(l));
  // A tool labelled only as a sender that names a sharper act (send_money) is classed by both.
  return fromLabels.length > 0 ? [...new Set([...fromLabels, ...consequentialByName(tool).filter((l) => l !== 'external_send')])] : [];
}

/** Whether a tool's results are content third parties can write: labelled so, or nobody labelled the tool. */
export function isUntrustedSource(labels: readonly CapabilityLabel[], origin: LabelOrigin | undefined): boolean {
  return labels.includes('untrusted_source') || origin === 'unlabelled';
}
