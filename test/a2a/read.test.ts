import { Message, Task } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { read } from '../../src/a2a/read.js';
import { contentText } from '../../src/core/fields.js';
import { redactContent } from '../../src/guard/redact.js';

const SECRET = 'sk-live-4f9a8b7c6d5e4f3a2b1c';

const message = () =>
  Message.fromJSON({
    messageId: 'm1',
    role: 'ROLE_AGENT',
    metadata: { note: `meta ${SECRET}` },
    parts: [
      { text: `text ${SECRET}` },
      { data: { nested: { key: SECRET } } },
      { url: `https://files.example/get?token=${SECRET}`, filename: 'report.pdf', mediaType: 'application/pdf' },
      { raw: Buffer.from(`bytes ${SECRET}\n`).toString('base64'), mediaType: 'text/plain', filename: 'env.txt' },
      { raw: Buffer.from([0, 1, 2, 3, 255, 254, 0, 0]).toString('base64'), mediaType: 'application/octet-stream' },
    ],
  });

describe('A2A reader', () => {
  it('reads every part and field: text, data, URL, text bytes, filenames, metadata', () => {
    const text = contentText(read().message(message()).blocks);
    for (const want of [`text ${SECRET}`, `"key":"${SECRET}"`, `token=${SECRET}`, `bytes ${SECRET}`, 'report.pdf', `meta ${SECRET}`]) expect(text).toContain(want);
  });

  it('reads a task: its status message, artifacts, history and metadata', () => {
    const task = Task.fromJSON({
      id: 't1',
      contextId: 'c1',
      metadata: { m: 'task-meta' },
      status: { state: 'TASK_STATE_WORKING', message: { messageId: 's', role: 'ROLE_AGENT', parts: [{ text: 'status-text' }] } },
      artifacts: [{ artifactId: 'a', name: 'artifact-name', description: 'artifact-description', parts: [{ text: 'artifact-text' }] }],
      history: [{ messageId: 'h', role: 'ROLE_USER', parts: [{ text: 'history-text' }] }],
    });
    const text = contentText(read().task(task).blocks);
    for (const want of ['task-meta', 'status-text', 'artifact-name', 'artifact-description', 'artifact-text', 'history-text']) expect(text).toContain(want);
  });

  it('writes a redaction back into every field it masked, leaving binary bytes as they were', () => {
    const m = message();
    const reading = read().message(m);
    reading.applyReplacement(redactContent(reading.blocks, [SECRET], 'sensitive data'));
    const out = JSON.stringify(Message.toJSON(m));
    expect(out).not.toContain(SECRET);
    expect(out).toContain('REDACTED by QuadGuard');
    const raw = m.parts[3]!.content;
    expect(raw?.$case === 'raw' && Buffer.from(raw.value).toString('utf8')).toBe('bytes [REDACTED by QuadGuard: sensitive data]\n');
    const binary = m.parts[4]!.content;
    expect(binary?.$case === 'raw' && [...binary.value]).toEqual([0, 1, 2, 3, 255, 254, 0, 0]);
    const data = m.parts[1]!.content;
    expect(data?.$case === 'data' && data.value).toEqual({ nested: { key: '[REDACTED by QuadGuard: sensitive data]' } });
  });

  it('refuses a redaction that breaks a data part (the caller then withholds the answer)', () => {
    const m = Message.fromJSON({ messageId: 'm', role: 'ROLE_AGENT', parts: [{ data: { a: 'x' } }] });
    const reading = read().message(m);
    expect(() => reading.applyReplacement(redactContent(reading.blocks, ['{"a":'], 'x'))).toThrow();
    expect(() => reading.applyReplacement([])).toThrow(/does not match/);
  });
});
