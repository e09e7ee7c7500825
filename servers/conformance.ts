#!/usr/bin/env node
/**
 * The fixture server for the official MCP conformance suite (`@modelcontextprotocol/conformance`, server
 * scenarios): every tool, resource, prompt and utility the scenarios ask for, served over Streamable HTTP on
 * /mcp (stateful sessions, an in-memory event store for SSE resumption, Host-header validation).
 *
 *   node dist/servers/conformance.js [--port 0] [--init-delay-ms 300]
 *
 * Prints `{"port":N}` on stdout once listening. `--init-delay-ms` answers every initialize that much later (to
 * test a proxy's discovery with a slow server). Exits on SIGTERM/SIGINT and when stdin closes.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  CreateMessageResultSchema,
  ElicitResultSchema,
  GetPromptRequestSchema,
  isInitializeRequest,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListRootsResultSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  McpError,
  type Progress,
  ErrorCode,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { argValue } from './common.js';

/** A 1×1 red PNG. */
export const PNG_1X1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A 44-byte WAV header with one silent sample. */
const WAV = Buffer.concat([
  Buffer.from('RIFF'), Buffer.from([38, 0, 0, 0]), Buffer.from('WAVEfmt '), Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0]),
  Buffer.from('data'), Buffer.from([2, 0, 0, 0, 0, 0]),
]).toString('base64');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (t: string) => ({ content: [{ type: 'text' as const, text: t }] });
const noArgs = { type: 'object', properties: {} };
const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

const TOOLS = [
  { name: 'test_simple_text', description: 'Returns simple text', inputSchema: noArgs },
  { name: 'test_image_content', description: 'Returns an image', inputSchema: noArgs },
  { name: 'test_audio_content', description: 'Returns audio', inputSchema: noArgs },
  { name: 'test_embedded_resource', description: 'Returns an embedded resource', inputSchema: noArgs },
  { name: 'test_multiple_content_types', description: 'Returns text, image and resource', inputSchema: noArgs },
  { name: 'test_tool_with_logging', description: 'Sends three log messages while running', inputSchema: noArgs },
  { name: 'test_error_handling', description: 'Always fails', inputSchema: noArgs },
  { name: 'test_tool_with_progress', description: 'Reports progress 0, 50, 100 of 100', inputSchema: noArgs },
  {
    name: 'test_sampling',
    description: 'Asks the client model to answer a prompt (sampling/createMessage)',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string' } }, required: ['prompt'] },
  },
  {
    name: 'test_elicitation',
    description: 'Asks the user for input (elicitation/create)',
    inputSchema: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  },
  { name: 'test_elicitation_sep1034_defaults', description: 'Elicitation with defaults for every primitive type', inputSchema: noArgs },
  { name: 'test_elicitation_sep1330_enums', description: 'Elicitation with every enum variant', inputSchema: noArgs },
  { name: 'test_reconnection', description: 'Closes the SSE stream mid-call, then answers (SEP-1699)', inputSchema: noArgs },
  // Not conformance scenarios: QuadGuard's own tests of roots and resource updates through the proxy.
  { name: 'qg_list_roots', description: 'Asks the client for its roots (roots/list) and returns them as JSON', inputSchema: noArgs },
  { name: 'qg_sampling_progress', description: 'Asks the client for a completion with a progress token and returns the progress it reported, as JSON', inputSchema: noArgs },
  {
    name: 'qg_sampling_cancel',
    description: 'Asks the client for a completion and cancels the request after after_ms',
    inputSchema: { type: 'object', properties: { after_ms: { type: 'number' } } },
  },
  {
    name: 'qg_sampling_reply',
    description: 'Asks the client model to answer a prompt (with includeContext when given) and returns, as JSON, the reply it received or the error',
    inputSchema: { type: 'object', properties: { prompt: { type: 'string' }, include_context: { type: 'string', enum: ['none', 'thisServer', 'allServers'] } }, required: ['prompt'] },
  },
  {
    name: 'qg_touch_resource',
    description: 'Sends notifications/resources/updated for a URI if the session subscribed to it',
    inputSchema: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] },
  },
  {
    name: 'json_schema_2020_12_tool',
    description: 'Tool with JSON Schema 2020-12 features',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
      properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
      additionalProperties: false,
    },
  },
];

const RESOURCES = [
  { uri: 'test://static-text', name: 'static-text', description: 'A static text resource', mimeType: 'text/plain' },
  { uri: 'test://static-binary', name: 'static-binary', description: 'A static binary resource', mimeType: 'image/png' },
  { uri: 'test://watched-resource', name: 'watched-resource', description: 'A resource to subscribe to', mimeType: 'text/plain' },
];

const PROMPTS = [
  { name: 'test_simple_prompt', description: 'A prompt without arguments' },
  {
    name: 'test_prompt_with_arguments',
    description: 'A prompt with two arguments',
    arguments: [
      { name: 'arg1', description: 'First test argument', required: true },
      { name: 'arg2', description: 'Second test argument', required: true },
    ],
  },
  {
    name: 'test_prompt_with_embedded_resource',
    description: 'A prompt embedding a resource',
    arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
  },
  { name: 'test_prompt_with_image', description: 'A prompt with an image' },
];

const SEP1034 = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
  },
};

const SEP1330 = {
  type: 'object',
  properties: {
    untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
    titledSingle: {
      type: 'string',
      oneOf: [
        { const: 'value1', title: 'First Option' },
        { const: 'value2', title: 'Second Option' },
        { const: 'value3', title: 'Third Option' },
      ],
    },
    legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
    untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
    titledMulti: {
      type: 'array',
      items: {
        anyOf: [
          { const: 'value1', title: 'First Choice' },
          { const: 'value2', title: 'Second Choice' },
          { const: 'value3', title: 'Third Choice' },
        ],
      },
    },
  },
};

/** One session's server: the whole conformance surface. */
export function createConformanceServer(): Server {
  const server = new Server(
    { name: 'quadguard-conformance-fixture', version: '0.1.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: { listChanged: true },
        logging: {},
        completions: {},
      },
    },
  );
  let level: LoggingLevel = 'debug';
  const subscribed = new Set<string>();

  server.setRequestHandler(SetLevelRequestSchema, async (req) => {
    level = req.params.level;
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOLS as never }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const args = (req.params.arguments ?? {}) as Record<string, unknown>;
    switch (req.params.name) {
      case 'test_simple_text':
        return text('This is a simple text response for testing.');
      case 'test_image_content':
        return { content: [{ type: 'image', data: PNG_1X1, mimeType: 'image/png' }] };
      case 'test_audio_content':
        return { content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] };
      case 'test_embedded_resource':
        return { content: [{ type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } }] };
      case 'test_multiple_content_types':
        return {
          content: [
            { type: 'text', text: 'Multiple content types test:' },
            { type: 'image', data: PNG_1X1, mimeType: 'image/png' },
            { type: 'resource', resource: { uri: 'test://mixed-content-resource', mimeType: 'application/json', text: JSON.stringify({ test: 'data', value: 123 }) } },
          ],
        };
      case 'test_tool_with_logging': {
        const log = async (data: string) => {
          if (LEVELS.indexOf('info') >= LEVELS.indexOf(level)) await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: 'conformance', data } });
        };
        await log('Tool execution started');
        await sleep(50);
        await log('Tool processing data');
        await sleep(50);
        await log('Tool execution completed');
        return text('Tool with logging executed successfully');
      }
      case 'test_error_handling':
        return { isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] };
      case 'test_tool_with_progress': {
        const token = req.params._meta?.progressToken;
        for (const progress of [0, 50, 100]) {
          if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, total: 100 } });
          if (progress < 100) await sleep(50);
        }
        return text('Tool with progress executed successfully');
      }
      case 'test_sampling': {
        if (!server.getClientCapabilities()?.sampling) throw new McpError(ErrorCode.InvalidRequest, 'the client does not support sampling');
        const r = await extra.sendRequest(
          { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: String(args.prompt ?? '') } }], maxTokens: 100 } },
          CreateMessageResultSchema,
        );
        const answer = r.content.type === 'text' ? r.content.text : JSON.stringify(r.content);
        return text(`LLM response: ${answer}`);
      }
      case 'test_elicitation': {
        if (!server.getClientCapabilities()?.elicitation) throw new McpError(ErrorCode.InvalidRequest, 'the client does not support elicitation');
        const r = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: {
              message: String(args.message ?? ''),
              requestedSchema: {
                type: 'object',
                properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } },
                required: ['username', 'email'],
              },
            },
          },
          ElicitResultSchema,
        );
        return text(`User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
      }
      case 'test_elicitation_sep1034_defaults':
      case 'test_elicitation_sep1330_enums': {
        const schema = req.params.name === 'test_elicitation_sep1034_defaults' ? SEP1034 : SEP1330;
        const r = await extra.sendRequest({ method: 'elicitation/create', params: { message: 'Please review and update the form fields', requestedSchema: schema as never } }, ElicitResultSchema);
        return text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
      }
      case 'test_reconnection': {
        await sleep(50);
        extra.closeSSEStream?.();
        await sleep(100);
        return text('Reconnection test completed');
      }
      case 'qg_sampling_progress': {
        const seen: Progress[] = [];
        const r = await extra.sendRequest(
          { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Count to two.' } }], maxTokens: 10 } },
          CreateMessageResultSchema,
          { onprogress: (p) => void seen.push(p) },
        );
        return text(JSON.stringify({ answer: r.content.type === 'text' ? r.content.text : '', progress: seen }));
      }
      case 'qg_sampling_cancel': {
        const abort = new AbortController();
        setTimeout(() => abort.abort('the server gave up'), Number(args.after_ms ?? 300));
        try {
          await extra.sendRequest(
            { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'Take your time.' } }], maxTokens: 10 } },
            CreateMessageResultSchema,
            { signal: abort.signal },
          );
          return text('answered');
        } catch {
          return text('cancelled');
        }
      }
      case 'qg_sampling_reply': {
        const includeContext = args.include_context as 'none' | 'thisServer' | 'allServers' | undefined;
        const params = { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: String(args.prompt ?? '') } }], maxTokens: 100, ...(includeContext ? { includeContext } : {}) };
        try {
          const r = await extra.sendRequest({ method: 'sampling/createMessage', params }, CreateMessageResultSchema);
          return text(JSON.stringify({ reply: r }));
        } catch (err) {
          const e = err as { code?: unknown; message?: unknown };
          return text(JSON.stringify({ error: { code: e.code, message: String(e.message) } }));
        }
      }
      case 'qg_list_roots': {
        const r = await extra.sendRequest({ method: 'roots/list' }, ListRootsResultSchema);
        return text(JSON.stringify(r.roots));
      }
      case 'qg_touch_resource': {
        const uri = String(args.uri ?? '');
        if (subscribed.has(uri)) await server.sendResourceUpdated({ uri });
        return text(subscribed.has(uri) ? `updated ${uri}` : `not subscribed: ${uri}`);
      }
      case 'json_schema_2020_12_tool':
        return text(`Received: ${JSON.stringify(args)}`);
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${req.params.name}`);
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [{ uriTemplate: 'test://template/{id}/data', name: 'template', description: 'A template with an id', mimeType: 'application/json' }],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const uri = req.params.uri;
    if (uri === 'test://static-text') return { contents: [{ uri, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }] };
    if (uri === 'test://static-binary') return { contents: [{ uri, mimeType: 'image/png', blob: PNG_1X1 }] };
    if (uri === 'test://watched-resource') return { contents: [{ uri, mimeType: 'text/plain', text: 'Watched resource content.' }] };
    const m = /^test:\/\/template\/([^/]+)\/data$/.exec(uri);
    if (m) return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify({ id: m[1], templateTest: true, data: `Data for ID: ${m[1]}` }) }] };
    throw new McpError(-32002, `Resource not found: ${uri}`);
  });
  server.setRequestHandler(SubscribeRequestSchema, async (req) => {
    subscribed.add(req.params.uri);
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (req) => {
    subscribed.delete(req.params.uri);
    return {};
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    const a = req.params.arguments ?? {};
    switch (req.params.name) {
      case 'test_simple_prompt':
        return { messages: [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }] };
      case 'test_prompt_with_arguments':
        return { messages: [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${a.arg1 ?? ''}', arg2='${a.arg2 ?? ''}'` } }] };
      case 'test_prompt_with_embedded_resource':
        return {
          messages: [
            { role: 'user', content: { type: 'resource', resource: { uri: a.resourceUri ?? 'test://example-resource', mimeType: 'text/plain', text: 'Embedded resource content for testing.' } } },
            { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
          ],
        };
      case 'test_prompt_with_image':
        return {
          messages: [
            { role: 'user', content: { type: 'image', data: PNG_1X1, mimeType: 'image/png' } },
            { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
          ],
        };
      default:
        throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${req.params.name}`);
    }
  });
  server.setRequestHandler(CompleteRequestSchema, async (req) => {
    const value = req.params.argument.value;
    const values = ['paris', 'park', 'party'].filter((v) => v.startsWith(value));
    return { completion: { values, total: values.length, hasMore: false } };
  });
  return server;
}

/** Serves the fixture on 127.0.0.1:`port` (0: a free port); resolves with the port and a close function. */
export async function serveConformance(port = 0, initDelayMs = 0): Promise<{ port: number; close: () => Promise<void> }> {
  const app = express();
  app.use(hostHeaderValidation(['localhost', '127.0.0.1', '[::1]']));
  app.use(express.json({ limit: '4mb' }));
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  app.all('/mcp', async (req: Request, res: Response) => {
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const t = sessions.get(sid);
      if (!t) return void res.status(404).json({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } });
      return t.handleRequest(req, res, req.body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(req.body)) {
      return void res.status(400).json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Bad Request: initialize first' } });
    }
    if (initDelayMs > 0) await sleep(initDelayMs);
    const server = createConformanceServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      eventStore: new InMemoryEventStore(),
      retryInterval: 100,
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const http = await new Promise<import('node:http').Server>((resolve, reject) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s));
    s.once('error', reject);
  });
  return {
    port: (http.address() as AddressInfo).port,
    close: async () => {
      for (const t of sessions.values()) await t.close().catch(() => {});
      http.closeAllConnections?.();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

const isMain = process.argv[1] !== undefined && /conformance\.(js|ts)$/.test(process.argv[1]);
if (isMain) {
  const { port, close } = await serveConformance(Number(argValue('--port') ?? 0), Number(argValue('--init-delay-ms') ?? 0));
  process.stdout.write(`${JSON.stringify({ port })}\n`);
  const stop = () => void close().finally(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop);
  process.stdin.on('close', stop);
  process.stdin.resume();
}
