/**
 * createServer: builds the McpServer and registers every tool. No transport, no process
 * I/O of its own: the bin (index.ts) and the tests build the same server.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ToolContext, type ContextOptions } from './context.js';
import { registerConditionalTools, registerTools } from './tools/index.js';
import { registerResources } from './resources.js';
import { registerPrompts } from './prompts.js';

export const SERVER_NAME = 'copilot-onboarding';

export interface CreatedServer {
  mcp: McpServer;
  ctx: ToolContext;
}

export function createServer(opts: ContextOptions): CreatedServer {
  const mcp = new McpServer(
    { name: SERVER_NAME, version: opts.version },
    {
      // Declared up front so tools can be enabled after connect.
      capabilities: { tools: { listChanged: true }, logging: {} },
      instructions:
        'Reorganises GitHub Copilot instruction files. Flow: onboarding_analyze -> (question_ask for uncertain scopes) -> ' +
        'onboarding_propose -> onboarding_approve -> onboarding_migrate; onboarding_rollback undoes a migration. ' +
        'Approve, migrate and rollback ask the human through an elicitation form; no tool argument can approve.',
    },
  );
  const ctx = new ToolContext(mcp, opts);

  registerTools(mcp, ctx);
  const conditional = registerConditionalTools(mcp, ctx);
  registerResources(mcp, ctx);
  registerPrompts(mcp, ctx);

  mcp.server.oninitialized = () => {
    // MCP logging starts here: a line before the client's initialize breaks strict clients.
    opts.log.attach(mcp);
    conditional.enableFor();
    // Use up request id 0: SDK 1.32 clients ignore a cancel for id 0.
    void mcp.server.ping().catch(() => undefined);
  };
  mcp.server.setNotificationHandler(RootsListChangedNotificationSchema, async () => ctx.resetRoots());
  return { mcp, ctx };
}
