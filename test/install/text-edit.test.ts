import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { installClient, uninstallClient } from '../../src/install/index.js';
import { applyEdits, describeEdits, indentUnitOf } from '../../src/install/text-edit.js';
import { sandbox } from './helpers.js';

describe('text edits', () => {
  it('applies edits from the end so offsets stay valid', () => {
    expect(applyEdits('0123456789', [{ start: 1, end: 2, replacement: 'AA' }, { start: 5, end: 8, replacement: '' }])).toBe('0AA23489');
  });

  it('guesses the indent unit', () => {
    expect(indentUnitOf('{\n    "a": {\n        "b": 1\n    }\n}')).toBe('    ');
    expect(indentUnitOf('{\n\t"a": 1\n}')).toBe('\t');
    expect(indentUnitOf('{"a": 1}')).toBe('  ');
  });

  it('describes each edit as whole lines', () => {
    const text = 'a\nb: 1\nc\n';
    expect(describeEdits('f', text, [{ start: 5, end: 6, replacement: '2' }])).toBe('--- f\n+++ f (after)\n@@ line 2 @@\n-b: 1\n+b: 2\n');
  });

  it('keeps CRLF line endings and a byte-order mark through install and uninstall', () => {
    const sb = sandbox();
    try {
      const text = '\uFEFF{\r\n  "mcpServers": {\r\n    "a": { "command": "srv" }\r\n  }\r\n}\r\n';
      const file = sb.write('project/c.json', text);
      installClient({ client: 'cursor', configFile: file, select: { all: true }, env: sb.env });
      const after = readFileSync(file, 'utf8');
      expect(after.startsWith('\uFEFF{\r\n')).toBe(true);
      expect(after.replace(/\r\n/g, '')).not.toContain('\n');
      expect(after).toContain('"wrap"');
      uninstallClient({ client: 'cursor', configFile: file, select: { all: true }, env: sb.env });
      expect(readFileSync(file, 'utf8')).toBe(text);
    } finally {
      sb.cleanup();
    }
  });
});
