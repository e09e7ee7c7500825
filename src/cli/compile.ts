import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { ConfigError, LlmError, PolicyError } from '../core/errors.js';
import type { LlmConfig } from '../llm/config.js';

/**
 * `quadguard policy compile <policy.md> -o <dir>`: translates a natural-language policy into a policy book with
 * the strong model (QuadSentinel §4.5) and writes, for a person to review before signing:
 * - `<dir>/book.yaml`: the compiled book (validated and linted);
 * - `<dir>/policy.md`: a copy of the source, which the book names as its `source`;
 * - `<dir>/REVIEW.md`: each rule beside its sentence, each predicate with its definition and detectors.
 * The endpoint comes from `--config FILE` (a proxy config with an `llm:` section, or just that section, YAML or
 * JSON) or from `--base-url URL --model M` (both tiers use M); the key from `--api-key-env` (default
 * OPENAI_API_KEY), never from the command line.
 */
export interface CompileCommandOptions {
  out: string;
  config?: string;
  baseUrl?: string;
  model?: string;
  apiKeyEnv?: string;
  name?: string;
  timeoutMs?: string;
}

/** What works without a model, said wherever compile stops for the lack of one. */
export const OFFLINE_HINT = 'Without a model: `quadguard policy add <book> "<sentence>"` compiles common rules offline (recipients limited to domains, paths limited to folders, a tool never called or always approved, a rate per tool, data from one server never sent to another), or write the rule in <book>/book.yaml yourself (README, "A first policy"); `quadguard policy check`, `explain` and `eval` need no model.';

/** Compile runs offline and long answers are slow: the default per-attempt timeout of this command. */
export const COMPILE_TIMEOUT_MS = 180_000;

/** Adds `compile` to the `policy` command group. */
export function addCompileSubcommand(policyCommand: Command): Command {
  return policyCommand
    .command('compile')
    .description('compile a natural-language policy (Markdown) into a policy book with an LLM, for review')
    .argument('<policy.md>', 'the natural-language policy')
    .requiredOption('-o, --out <dir>', 'output folder (book.yaml, policy.md, REVIEW.md)')
    .option('--config <file>', 'QuadGuard config (YAML/JSON) with an llm: section')
    .option('--base-url <url>', 'OpenAI-compatible endpoint, e.g. http://127.0.0.1:11434/v1 (instead of --config)')
    .option('--model <name>', 'model to compile with (with --config: overrides llm.models.strong)')
    .option('--api-key-env <var>', 'environment variable holding the API key (default OPENAI_API_KEY)')
    .option('--name <name>', 'book name (default: the output folder name)')
    .option('--timeout-ms <n>', `per-attempt timeout (default ${COMPILE_TIMEOUT_MS})`)
    .action(async (policyFile: string, opts: CompileCommandOptions) => {
      const summary = await runCompile(policyFile, opts);
      process.stdout.write(`${summary}\n`);
    });
}

/** The command's work, callable from tests and benches. Returns the one-line summary it prints. */
export async function runCompile(policyFile: string, opts: CompileCommandOptions, env: Record<string, string | undefined> = process.env): Promise<string> {
  const config = await resolveLlmConfig(opts);
  // Loaded here, not at the top: every `quadguard` command registers `policy compile`, few run it.
  const [{ LlmClient }, { compilePolicy }] = await Promise.all([import('../llm/client.js'), import('../llm/compile.js')]);
  const client = new LlmClient(config, { env });
  let markdown: string;
  try {
    markdown = await readFile(policyFile, 'utf8');
  } catch (err) {
    throw new PolicyError('policy_read_error', `cannot read ${policyFile}: ${(err as Error).message}`, { cause: err });
  }
  const outDir = resolve(opts.out);
  const name = opts.name ?? sanitizeName(basename(outDir));
  let compiled: Awaited<ReturnType<typeof compilePolicy>>;
  try {
    compiled = await compilePolicy(client, markdown, { name, source: 'policy.md' });
  } catch (err) {
    if (err instanceof LlmError) throw new LlmError(err.code, `${err.message}\n${OFFLINE_HINT}`, { cause: err });
    throw err;
  }
  const { book, reviewSheet, usage } = compiled;
  await mkdir(outDir, { recursive: true });
  const header = `# Compiled by \`quadguard policy compile\` from policy.md with ${client.model('strong')}.\n# Review REVIEW.md, run \`quadguard policy check\`, then sign.\n`;
  const { stringify } = await import('yaml');
  await writeFile(join(outDir, 'book.yaml'), header + stringify(book, { lineWidth: 0 }), 'utf8');
  if (resolve(policyFile) !== join(outDir, 'policy.md')) await copyFile(policyFile, join(outDir, 'policy.md'));
  await writeFile(join(outDir, 'REVIEW.md'), reviewSheet, 'utf8');
  const u = usage;
  return `compiled ${book.rules.length} rules and ${book.predicates.length} predicates into ${join(outDir, 'book.yaml')} (${u.calls} model call(s), ${u.promptTokens}+${u.completionTokens} tokens); review ${join(outDir, 'REVIEW.md')} before signing`;
}

/** The endpoint settings from `--config` or `--base-url/--model`, validated. */
export async function resolveLlmConfig(opts: CompileCommandOptions): Promise<LlmConfig> {
  const timeout = opts.timeoutMs !== undefined ? Number(opts.timeoutMs) : COMPILE_TIMEOUT_MS;
  if (!Number.isInteger(timeout) || timeout <= 0) throw new ConfigError('config_invalid', `--timeout-ms must be a positive integer, got ${opts.timeoutMs}`);
  let raw: Record<string, unknown>;
  if (opts.config !== undefined) {
    if (opts.baseUrl !== undefined) throw new ConfigError('config_invalid', 'give either --config or --base-url, not both');
    // `yaml` is loaded here, not at the top: `policy check` registers this command but must start without it.
    const { parse } = await import('yaml');
    let doc: unknown;
    try {
      doc = parse(await readFile(opts.config, 'utf8'));
    } catch (err) {
      throw new ConfigError('config_unreadable', `cannot read ${opts.config}: ${(err as Error).message}`, { cause: err, location: { file: opts.config } });
    }
    const section = doc && typeof doc === 'object' && 'llm' in doc ? (doc as { llm: unknown }).llm : doc;
    if (!section || typeof section !== 'object') throw new ConfigError('config_invalid', `${opts.config}: no llm: section (compile needs a model endpoint).\n${OFFLINE_HINT}`, { location: { file: opts.config } });
    raw = { ...(section as Record<string, unknown>) };
    if (opts.model !== undefined) raw.models = { ...((raw.models as object) ?? {}), strong: opts.model };
  } else {
    if (opts.baseUrl === undefined || opts.model === undefined) {
      throw new ConfigError('config_invalid', `compile drafts a book with a model: give --config FILE (with an llm: section), or both --base-url URL and --model NAME.\n${OFFLINE_HINT}`);
    }
    raw = { base_url: opts.baseUrl, models: { light: opts.model, strong: opts.model } };
  }
  if (opts.apiKeyEnv !== undefined) raw.api_key_env = opts.apiKeyEnv;
  // An explicit --timeout-ms wins; otherwise compile gets at least COMPILE_TIMEOUT_MS (evaluation timeouts are far too short for it).
  raw.timeout_ms = opts.timeoutMs !== undefined ? timeout : Math.max(timeout, typeof raw.timeout_ms === 'number' ? raw.timeout_ms : 0);
  const { LlmConfigSchema } = await import('../llm/config.js');
  const parsed = LlmConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError('config_invalid', `${opts.config ?? 'command line'}: llm:\n${z.prettifyError(parsed.error)}`, opts.config ? { location: { file: opts.config } } : {});
  }
  return parsed.data;
}

function sanitizeName(s: string): string {
  // eslint-disable-next-line regexp/no-super-linear-move -- a name the operator gives on the command line
  const n = s.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
  return n.length > 0 ? n : 'policy';
}
