import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';

/**
 * A small policy book for approval tests: publishing needs a person's approval (soft, effect approve);
 * deleting outside the sandbox is a hard denial; sending mail is a plain soft denial.
 */
export const APPROVAL_BOOK = {
  name: 'approvals-test',
  version: '1',
  predicates: [
    { name: 'publish_call', description: 'The call publishes content.', scope: 'action', detectors: [{ type: 'tool', match: ['*__publish*'], kinds: ['tool_call'] }] },
    { name: 'delete_call', description: 'The call deletes a file.', scope: 'action', detectors: [{ type: 'tool', match: ['*__delete*'], kinds: ['tool_call'] }] },
    { name: 'outside_sandbox', description: 'The path lies outside the sandbox.', scope: 'action', detectors: [{ type: 'path', field: 'arguments.path', under: ['/tmp', '/workspace'], outside: true }] },
    { name: 'mail_call', description: 'The call sends mail.', scope: 'action', detectors: [{ type: 'tool', match: ['*__send_email'], kinds: ['tool_call'] }] },
  ],
  rules: [
    { id: 'publish-needs-approval', text: 'Publishing needs the approval of a person.', applies_to: ['tool_call'], formula: '!publish_call', severity: 'low', effect: 'approve', remediation: 'Wait for a person.' },
    { id: 'no-delete-outside-sandbox', text: 'Never delete outside the sandbox.', applies_to: ['tool_call'], formula: '!(delete_call & outside_sandbox)', severity: 'high', hard: true },
    { id: 'no-mail', text: 'Do not send mail.', applies_to: ['tool_call'], formula: '!mail_call', severity: 'high' },
  ],
};

/** Writes `book` (default: the approvals book) as book.yaml in a new temp folder; returns the folder. */
export function writeBook(book: unknown = APPROVAL_BOOK, dir = mkdtempSync(join(tmpdir(), 'qg-approvals-'))): string {
  writeFileSync(join(dir, 'book.yaml'), YAML.stringify(book));
  return dir;
}
