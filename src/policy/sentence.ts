import { PolicyError } from '../core/errors.js';

/**
 * `quadguard policy add "<sentence>"`: the rule shapes users write most, compiled offline from one sentence, with no
 * model. Each shape is a pattern over the sentence; what it yields is ordinary book YAML (predicates, a rule,
 * capability labels) and one eval case the new rule must deny. A sentence no shape matches gets the list of shapes.
 */

/** A predicate, rule and capability entry as they go into book.yaml (the book schema validates them on load). */
export interface SentenceRule {
  shape: string;
  predicates: Array<Record<string, unknown>>;
  rule: Record<string, unknown> & { id: string; applies_to: string[] };
  capabilities?: Array<{ match: string[]; labels: string[]; note: string }>;
  /** Interactions of one eval case; the last one is what the rule denies (approve rules: holds). */
  caseSteps: Array<Record<string, unknown>>;
}

/** The shapes, with an example each: shown when a sentence matches none. */
export const SENTENCE_SHAPES: ReadonlyArray<{ shape: string; example: string }> = [
  { shape: 'recipients limited to domains', example: 'Only send email to example.com and example.org' },
  { shape: 'paths limited to folders', example: 'Only access files under ~/projects and /srv/data' },
  { shape: 'a tool never called', example: 'Never call github__delete_repo' },
  { shape: 'a tool always approved', example: 'Always ask before calling mail__send_email' },
  { shape: 'a rate per tool', example: 'send_email at most 10 times per hour' },
  { shape: 'data from a server never sent to another', example: 'Data from server crm must never be sent to server slack' },
];

/** The YAML to write by hand when no shape fits (README "A first policy" explains each key). */
export const HAND_WRITTEN_YAML = `predicates:
  - name: my_condition
    description: What is true about the call.
    detectors: [{ type: tool, match: ['server__tool'] }]   # or path, url_domain, regex, keywords, ... (docs/detectors.md)
rules:
  - id: my-rule
    text: The sentence of policy.md it enforces.
    applies_to: [tool_call]
    formula: '!(my_condition)'
    severity: high
    hard: true
    remediation: What the agent should do instead.`;

const DOMAIN = /(?<![\w./~-])@?((?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,})(?![\w/-])/gi;
const FOLDER = /(?<![\w])(~?\/[^\s,;'"`)]*)/g;
/** A tool named in a sentence: `server__tool` (globs allowed), or a bare tool name. */
const TOOL = String.raw`\x60?([A-Za-z0-9_*?.-]+)\x60?`;

// eslint-disable-next-line regexp/no-super-linear-move -- a name from the operator's policy sentence
const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 40) || 'x';
const toolGlob = (name: string) => (name.includes('__') ? name : `*__${name}`);
const exampleTool = (glob: string) => glob.replace(/^\*__/, 'any__').replace(/\*\*?/g, 'x').replace(/\?/g, 'x');
const sinkStep = (tool: string, args: Record<string, unknown>) => {
  const [server, name] = tool.split('__') as [string, string];
  return { kind: 'tool_call', server, tool: name, arguments: args };
};

/** The most calls a rate sentence may allow: its test case makes that many calls and one more. */
export const MAX_SENTENCE_RATE = 500;

const PER = String.raw`(?:per|an?|each|every|/|in an?) ?(minute|min|hour|hr|day)s?`;
const AT_MOST = String.raw`(?:at most|no more than|not more than|up to|max(?:imum)?(?: of)?)`;

/** "send_email at most 10 times per hour", "at most 5 calls to github__create_issue a minute", "limit x to 100 per day". */
function rateSentence(s: string): { tool: string; max: number; per: 'minute' | 'hour' | 'day' } | undefined {
  const m =
    new RegExp(String.raw`^(?:(?:call|use|run) )?(?:the )?(?:tool )?${TOOL} (?:(?:may|can|must|should) )?(?:(?:only )?be (?:called|used|run) )?${AT_MOST} (\d+) ?(?:times?|calls?)? ${PER}\.?$`, 'i').exec(s) ??
    new RegExp(String.raw`^(?:allow )?${AT_MOST} (\d+) (?:calls?|times?|uses?) (?:to|of) (?:the )?(?:tool )?${TOOL} ${PER}\.?$`, 'i').exec(s) ??
    new RegExp(String.raw`^limit (?:the )?(?:tool )?${TOOL} to (\d+) ?(?:calls?|times?)? ${PER}\.?$`, 'i').exec(s);
  if (!m) return undefined;
  const [tool, n] = /^\d+$/.test(m[1]!) ? [m[2]!, m[1]!] : [m[1]!, m[2]!];
  const unit = m[3]!.toLowerCase();
  const per = unit.startsWith('min') ? 'minute' : unit.startsWith('h') ? 'hour' : 'day';
  const max = Number(n);
  if (!Number.isSafeInteger(max) || max < 1) return undefined;
  if (max > MAX_SENTENCE_RATE) throw new PolicyError('policy_sentence_unknown', `policy add writes rates up to ${MAX_SENTENCE_RATE} per ${per} (its test case makes that many calls); for ${max}, write the rate predicate by hand: { type: rate, tools: ['${toolGlob(tool)}'], max: ${max}, per: ${per} }`);
  return { tool, max, per };
}

/** The rule for `sentence`, or undefined when no shape matches it. */
export function compileSentence(sentence: string): SentenceRule | undefined {
  const s = sentence.trim();
  const lower = s.toLowerCase();

  const flow = /data (?:read )?from (?:the )?(?:server )?`?([a-z][a-z0-9-]*)`? (?:server )?(?:must |should |may |can )?(?:never|not) (?:be )?(?:sent|go|goes|flow|flows|leave|leaves|reach|reaches)(?: out)? (?:to|into) (?:the )?(?:server )?`?([a-z][a-z0-9-]*)`?/i.exec(s);
  if (flow) {
    const [from, to] = [flow[1]!.toLowerCase(), flow[2]!.toLowerCase()];
    const id = `no-${from}-data-to-${to}`;
    return {
      shape: 'data from a server never sent to another',
      capabilities: [
        { match: [`${from}__**`], labels: ['private_source'], note: `policy add: what ${from} returns is private` },
        { match: [`${to}__**`], labels: ['external_send'], note: `policy add: what goes to ${to} leaves` },
      ],
      predicates: [
        { name: `calls_${slug(to)}`, description: `The call goes to a tool of server ${to}.`, detectors: [{ type: 'tool', match: [`${to}__**`] }] },
        { name: `private_data_to_${slug(to)}`, description: `The call carries data this agent read from a private source (server ${from}'s tools are labelled private_source).`, detectors: [{ type: 'data_flow', sinks: ['external_send'] }] },
      ],
      rule: { id, text: s, applies_to: ['tool_call'], formula: `!(calls_${slug(to)} & private_data_to_${slug(to)})`, severity: 'high', hard: true, remediation: `Do not pass what ${from} returned to ${to}.` },
      caseSteps: [
        { kind: 'tool_result', server: from, tool: 'get_record', content: [{ type: 'text', text: 'Account 7741-2230 belongs to Dana Whitfield, renewal due on the ninth of May.' }] },
        sinkStep(`${to}__post_message`, { text: 'Account 7741-2230 belongs to Dana Whitfield, renewal due on the ninth of May.' }),
      ],
    };
  }

  const rate = rateSentence(s);
  if (rate) {
    const glob = toolGlob(rate.tool);
    const name = `${slug(rate.tool)}_over_${rate.max}_per_${rate.per}`;
    return {
      shape: 'a rate per tool',
      predicates: [{ name, description: `This call of ${glob} would be more than ${rate.max} by this agent in the last ${rate.per}.`, detectors: [{ type: 'rate', tools: [glob], max: rate.max, per: rate.per }] }],
      rule: { id: `rate-${slug(rate.tool).replace(/_/g, '-')}-${rate.max}-per-${rate.per}`, text: s, applies_to: ['tool_call'], formula: `!(${name})`, severity: 'low', hard: true, remediation: `Call ${rate.tool} at most ${rate.max} times per ${rate.per}; wait for the retry-after.` },
      // The limit's calls pass; the one after them is refused.
      caseSteps: Array.from({ length: rate.max + 1 }, () => sinkStep(exampleTool(glob), {})),
    };
  }

  const never = new RegExp(String.raw`^(?:never|do not|don't|must not) (?:ever )?(?:call|use|run|invoke) (?:the )?(?:tool )?${TOOL}`, 'i').exec(s) ?? new RegExp(String.raw`^(?:the )?(?:tool )?${TOOL} (?:must|should|may) never be (?:called|used|run)`, 'i').exec(s);
  if (never) {
    const glob = toolGlob(never[1]!);
    const name = `calls_${slug(never[1]!)}`;
    return {
      shape: 'a tool never called',
      predicates: [{ name, description: `The call is to ${glob}.`, detectors: [{ type: 'tool', match: [glob] }] }],
      rule: { id: `never-${slug(never[1]!).replace(/_/g, '-')}`, text: s, applies_to: ['tool_call'], formula: `!(${name})`, severity: 'high', hard: true, remediation: `Do not call ${never[1]}; ask the user to do it.` },
      caseSteps: [sinkStep(exampleTool(glob), {})],
    };
  }

  const approve =
    new RegExp(String.raw`(?:always )?(?:ask|ask me|ask the user|get approval|require approval|need approval|confirm)(?: first)? (?:before|for) (?:calling|using|running|every call to|each call to|calls to)? ?(?:the )?(?:tool )?${TOOL}`, 'i').exec(s) ??
    new RegExp(String.raw`^(?:the )?(?:tool )?${TOOL} (?:always )?(?:needs|requires|must get|must have) (?:an? )?(?:approval|confirmation)`, 'i').exec(s);
  if (approve) {
    const glob = toolGlob(approve[1]!);
    const name = `calls_${slug(approve[1]!)}`;
    return {
      shape: 'a tool always approved',
      predicates: [{ name, description: `The call is to ${glob}.`, detectors: [{ type: 'tool', match: [glob] }] }],
      rule: { id: `approve-${slug(approve[1]!).replace(/_/g, '-')}`, text: s, applies_to: ['tool_call'], formula: `!(${name})`, severity: 'medium', hard: false, effect: 'approve', remediation: `A person approves each call to ${approve[1]} (quadguard approve <id>); then retry it.` },
      caseSteps: [sinkStep(exampleTool(glob), {})],
    };
  }

  // eslint-disable-next-line regexp/no-super-linear-move -- a folder named in the operator's policy sentence
  const folders = [...s.matchAll(FOLDER)].map((m) => m[1]!.replace(/[.]+$/, '')).filter((p) => p.length > 1);
  if (folders.length > 0 && /\b(only|must stay|limited|restricted)\b/.test(lower) && /\b(files?|paths?|folders?|director(?:y|ies)|read|write|access|edit)\b/.test(lower)) {
    const name = `path_outside_${slug(folders[0]!)}`;
    return {
      shape: 'paths limited to folders',
      predicates: [{ name, description: `A path argument lies outside ${folders.join(', ')}.`, detectors: [{ type: 'path', field: 'arguments', under: folders, outside: true }] }],
      rule: { id: `paths-only-under-${slug(folders[0]!).replace(/_/g, '-')}`, text: s, applies_to: ['tool_call'], formula: `!(${name})`, severity: 'high', hard: true, remediation: `Work only under ${folders.join(', ')}.` },
      caseSteps: [sinkStep('files__read_file', { path: '/etc/hostname' })],
    };
  }

  const domains = [...s.matchAll(DOMAIN)].map((m) => m[1]!.toLowerCase());
  if (domains.length > 0 && /\b(only|must|limited|restricted)\b/.test(lower) && /\b(send|sent|mail|e-?mails?|messages?|recipients?|write to|post)\b/.test(lower)) {
    const outside = `recipient_outside_${slug(domains[0]!)}`;
    const sends = 'sends_message';
    return {
      shape: 'recipients limited to domains',
      predicates: [
        { name: sends, description: 'The call sends, posts or forwards a message.', detectors: [{ type: 'tool', match: ['*__send*', '*__*mail*', '*__post*', '*__reply*', '*__forward*', '*__message*'] }] },
        { name: outside, description: `An address or link in the call's arguments is outside ${domains.join(', ')}.`, detectors: [{ type: 'url_domain', field: 'arguments', allow: domains }] },
      ],
      rule: { id: `recipients-only-${slug(domains[0]!).replace(/_/g, '-')}`, text: s, applies_to: ['tool_call'], formula: `!(${sends} & ${outside})`, severity: 'high', hard: true, remediation: `Send only to addresses at ${domains.join(', ')}.` },
      caseSteps: [sinkStep('mail__send_email', { to: 'someone@elsewhere.invalid', subject: 'hello', body: 'hi' })],
    };
  }
  return undefined;
}
