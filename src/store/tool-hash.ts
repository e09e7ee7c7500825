import { canonicalJson, sha256Hex } from '../core/canonical.js';

/** The parts of an MCP tool definition that a pin covers. */
export interface ToolDefinition {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: unknown;
}

/**
 * JSON Schema arrays whose order carries no meaning (`required` is a set of names; `type: ["string","null"]` a
 * set of types). Other arrays (`enum`, `prefixItems`, `anyOf`…) keep their order: reordering them is rare and a
 * spurious re-approval is cheaper than a missed change.
 */
const SET_ARRAYS = new Set(['required', 'type']);

/**
 * Order-insensitive SHA-256 (hex) of a tool definition: name, title, description, input and output schemas and
 * annotations as canonical JSON (keys sorted at every level, `required` and `type` arrays sorted). Anything
 * else (`_meta`, `icons`, `execution`) is ignored, so a server re-sending the same tool in another key order
 * keeps its pin, and a changed description (tool poisoning, rug pull) does not.
 */
export function toolDefinitionHash(tool: ToolDefinition): string {
  const pinned = {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
  };
  return sha256Hex(canonicalJson(pinned, (key) => SET_ARRAYS.has(key)));
}

/** The pinned parts of a definition, as canonical JSON (what a pin stores for review and diffing). */
export function toolDefinitionJson(tool: ToolDefinition): string {
  const { name, title, description, inputSchema, outputSchema, annotations } = tool;
  return canonicalJson({ name, title, description, inputSchema, outputSchema, annotations });
}
