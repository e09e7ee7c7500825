/**
 * End to end through the built CLI with a real child-process server (servers/hostile.ts --listings): the prompts,
 * resources and resource templates a server lists, and the completion values it suggests, are screened for injected
 * instructions as tool descriptions are. A poisoned item is missing from its listing, a get or read of it is refused
 * naming why, and the audit log has one admin row for it; the benign items beside them are listed and work.
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOSTILE_INJECTION } from '../../servers/hostile.js';
import { CLI, ROOT, connectStdio, makeSandbox, writeConfig } from '../support/proxy-harness.js';

const hostile = { command: process.execPath, args: [join(ROOT, 'dist', 'servers', 'hostile.js'), '--listings'] };

describe('listing screen: prompts, resources, templates and completions', { timeout: 120_000 }, () => {
  const sb = makeSandbox();
  afterAll(() => rmSync(sb.dir, { recursive: true, force: true }));

  it('hides poisoned prompts, resources and templates, refuses them, drops poisoned completion values and audits each', async () => {
    const store = join(sb.dir, 'listings.db');
    const cfg = writeConfig(sb.dir, { servers: { hostile }, policy: join(ROOT, 'policies', 'default'), store });
    const { client } = await connectStdio(cfg);
    try {
      const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
      expect(prompts).toEqual(expect.arrayContaining(['hostile__briefing', 'hostile__greeting']));
      expect(prompts).not.toContain('hostile__sync_notes');
      expect(prompts).not.toContain('hostile__summarise');
      const resources = (await client.listResources()).resources.map((r) => r.uri);
      expect(resources).toEqual(expect.arrayContaining(['hostile+hostile://report', 'hostile+hostile://clean']));
      expect(resources).not.toContain('hostile+hostile://notes');
      const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
      expect(templates).toEqual(['hostile+hostile://page/{n}']);

      // The benign items work (the control).
      const greeting = await client.getPrompt({ name: 'hostile__greeting', arguments: { day: 'monday' } });
      expect(JSON.stringify(greeting.messages)).toContain('Today is monday');
      const clean = await client.readResource({ uri: 'hostile+hostile://clean' });
      expect(JSON.stringify(clean.contents)).toContain('all systems normal');
      const page = await client.readResource({ uri: 'hostile+hostile://page/2' });
      expect(JSON.stringify(page.contents)).toContain('all systems normal');

      // The hidden ones are refused, naming why.
      await expect(client.getPrompt({ name: 'hostile__sync_notes' })).rejects.toThrow(/Prompt hostile__sync_notes is hidden by QuadGuard: its listing .* carries injected instructions/);
      await expect(client.getPrompt({ name: 'hostile__summarise', arguments: { text: 'x' } })).rejects.toThrow(/hidden by QuadGuard/);
      await expect(client.readResource({ uri: 'hostile+hostile://notes' })).rejects.toThrow(/Resource hostile\+hostile:\/\/notes is hidden by QuadGuard: its listing .* carries injected instructions/);
      await expect(client.readResource({ uri: 'hostile+hostile://diary/monday' })).rejects.toThrow(/hidden by QuadGuard: the listing of its resource template carries injected instructions/);
      await expect(client.subscribeResource({ uri: 'hostile+hostile://notes' })).rejects.toThrow(/hidden by QuadGuard/);
      await expect(client.complete({ ref: { type: 'ref/resource', uri: 'hostile+hostile://diary/{day}' }, argument: { name: 'day', value: 'mo' } })).rejects.toThrow(/Unknown completion reference/);

      // Completion values: the poisoned one is dropped, the others pass.
      const done = await client.complete({ ref: { type: 'ref/prompt', name: 'hostile__greeting' }, argument: { name: 'day', value: '' } });
      expect(done.completion.values).toEqual(['monday', 'tuesday']);
      expect(done.completion.total).toBe(2);
    } finally {
      await client.close();
    }
    const tail = spawnSync(process.execPath, [CLI, 'audit', 'tail', '--store', store, '-n', '200'], { encoding: 'utf8' }).stdout;
    expect(tail).toMatch(/prompt sync_notes of server "hostile" hidden: its listing carries injected instructions/);
    expect(tail).toMatch(/prompt summarise of server "hostile" hidden/);
    expect(tail).toMatch(/resource hostile:\/\/notes of server "hostile" hidden/);
    expect(tail).toMatch(/template hostile:\/\/diary\/\{day\} of server "hostile" hidden/);
    expect(tail).toMatch(/completion value for hostile__greeting of server "hostile" dropped/);
    // One row per item and reason, however often it was listed.
    expect(tail.match(/prompt sync_notes of server "hostile" hidden/g)).toHaveLength(1);
    expect(tail).not.toMatch(/(greeting|briefing|clean|page\/\{n\}) of server "hostile" hidden/);
    // A get of a hidden prompt is one refusal, for why it is hidden (not also one for an unknown prompt).
    expect(tail).toMatch(/prompt hostile__sync_notes is hidden by QuadGuard/);
    expect(tail).not.toMatch(/there is no prompt hostile__sync_notes/);
    // A subscription to a hidden resource is a recorded refusal too, as a read of it is.
    expect(tail.match(/resource hostile\+hostile:\/\/notes is hidden by QuadGuard/g)).toHaveLength(2);
  });

  it('without a policy the listings pass unscreened (as tool descriptions do)', async () => {
    const cfg = writeConfig(sb.dir, { servers: { hostile }, store: join(sb.dir, 'nopolicy.db') }, 'nopolicy.yaml');
    const { client } = await connectStdio(cfg);
    try {
      expect((await client.listPrompts()).prompts.map((p) => p.name)).toContain('hostile__sync_notes');
      expect((await client.listResources()).resources.map((r) => r.uri)).toContain('hostile+hostile://notes');
      const done = await client.complete({ ref: { type: 'ref/prompt', name: 'hostile__greeting' }, argument: { name: 'day', value: '' } });
      expect(done.completion.values).toContain(HOSTILE_INJECTION);
    } finally {
      await client.close();
    }
  });
});
