#!/usr/bin/env node
/**
 * The smallest useful MCP server on stdio, for the cold-start comparison in bench/cold-start.mjs:
 * the SDK's McpServer + StdioServerTransport with one tool, nothing else.
 *
 *   node bench/minimal-server.mjs   # then write JSON-RPC lines on stdin
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-minimal', version: '1.0.0' });
server.registerTool(
  'echo',
  { description: 'Returns its input.', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);
process.stdin.on('end', () => process.exit(0));
await server.connect(new StdioServerTransport());
