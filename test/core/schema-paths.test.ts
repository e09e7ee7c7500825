import { describe, expect, it } from 'vitest';
import { schemaPathKeys } from '../../src/core/schema-paths.js';

describe('schemaPathKeys: the path arguments a tool schema declares', () => {
  it('reads formats and descriptions, in nested objects and arrays', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'Name of the file to remove' },
        target: { type: 'string', format: 'uri' },
        count: { type: 'number', description: 'How many lines' },
        options: { type: 'object', properties: { out: { type: 'string', title: 'Output folder' } } },
        inputs: { type: 'array', items: { type: 'string', format: 'uri-reference' } },
        label: { type: 'string', description: 'A label shown to the user' },
      },
    };
    expect(schemaPathKeys(schema).sort()).toEqual(['inputs', 'name', 'out', 'target']);
  });

  it('is empty for a schema without path arguments or for garbage', () => {
    expect(schemaPathKeys({ type: 'object', properties: { a: { type: 'number' } } })).toEqual([]);
    expect(schemaPathKeys(null)).toEqual([]);
    expect(schemaPathKeys('x')).toEqual([]);
  });
});
