/**
 * Tools whose zod schemas are built on first use, not at the server's start.
 *
 * zod builds every schema eagerly (each `.optional()`, `.nullable()`, `.describe()` is a new
 * schema object), and our output schemas are large: built when their modules loaded, they were
 * most of the server's own start-up work before it could answer `initialize`. The SDK reads a
 * registered tool's `inputSchema` and `outputSchema` only when it lists the tools, validates a
 * call's arguments or checks its structured result, so each is built then, once, by the SDK's own
 * shape-to-object conversion (the one `registerTool` applies to a raw shape): `tools/list` and
 * validation are exactly what they were (test/e2e/tool-snapshots.test.ts).
 */
import type { McpServer, RegisteredTool, ToolCallback } from '@modelcontextprotocol/sdk/server/mcp.js';
import { objectFromShape, type ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

interface ToolConfig {
  title?: string;
  description?: string;
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
}

/** `mcp.registerTool` with the input and output shapes given as functions, called on first use. */
export function registerTool<I extends ZodRawShapeCompat, O extends ZodRawShapeCompat>(
  mcp: McpServer,
  name: string,
  config: ToolConfig & { inputSchema: () => I; outputSchema: () => O },
  cb: ToolCallback<I>,
): RegisteredTool {
  const { inputSchema, outputSchema, ...rest } = config;
  const tool = mcp.registerTool(name, rest, cb as unknown as ToolCallback);
  onFirstRead(tool, 'inputSchema', () => objectFromShape(inputSchema()));
  onFirstRead(tool, 'outputSchema', () => objectFromShape(outputSchema()));
  return tool;
}

function onFirstRead<K extends 'inputSchema' | 'outputSchema'>(tool: RegisteredTool, key: K, build: () => RegisteredTool[K]): void {
  let value: RegisteredTool[K] | undefined;
  let built = false;
  Object.defineProperty(tool, key, {
    configurable: true,
    enumerable: true,
    get: () => {
      if (!built) {
        value = build();
        built = true;
      }
      return value;
    },
    // RegisteredTool.update() replaces a schema: the new one is used as it is.
    set: (v: RegisteredTool[K]) => {
      value = v;
      built = true;
    },
  });
}
