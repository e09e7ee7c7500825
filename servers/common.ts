/**
 * Helpers shared by the bundled example servers: argument lookup, text results, and a lifecycle that exits on
 * SIGTERM/SIGINT and when stdin closes (so a dying client never leaves them behind).
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** Value following `--name` on the command line, if any. */
export function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** A one-block text tool result. */
export function textResult(text: string): { content: Array<{ type: 'text'; text: string }> } {
  return { content: [{ type: 'text', text }] };
}

/** Connects the server and exits cleanly on SIGTERM, SIGINT or stdin end. */
export async function runUntilClosed(server: { connect(t: Transport): Promise<void>; close(): Promise<void> }, transport: Transport): Promise<void> {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void server.close().finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 1000).unref();
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  await server.connect(transport);
}
