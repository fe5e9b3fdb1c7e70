/**
 * createServer: builds the McpServer and registers every tool. No transport, no process
 * I/O of its own: the bin (index.ts) and the tests build the same server.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RootsListChangedNotificationSchema, type ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { ToolContext, type ContextOptions } from './context.js';
import { registerConditionalTools, registerTools } from './tools/index.js';
import { registerResources } from './resources.js';
import { registerPrompts } from './prompts.js';
import { forApps, registerPlanView } from './plan-view.js';

const SERVER_NAME = 'copilot-onboarding';

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
  registerPlanView(mcp);
  registerPrompts(mcp, ctx);
  listToolsWithoutDialect(mcp);

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

/**
 * The SDK converts tool schemas with zod's draft-07 target and declares
 * `"$schema": "http://json-schema.org/draft-07/schema#"` on each; MCP's default dialect is
 * JSON Schema 2020-12, and a strict 2020-12 validator rejects a draft-07 `$schema`. Our schemas
 * use no keyword whose meaning differs between the two (no `definitions`, no tuple `items`), so
 * dropping the declaration makes them 2020-12 schemas. The SDK offers no option for the target:
 * its tools/list handler is wrapped here, the one place tool schemas leave the server. The same
 * wrapper sets every tool's visibility for MCP Apps (mcp/plan-view.ts forApps): model-only, but
 * for the plan view's read-only data tool, which is app-only.
 */
function listToolsWithoutDialect(mcp: McpServer): void {
  type Handler = (req: unknown, extra: unknown) => Promise<ListToolsResult> | ListToolsResult;
  const handlers = (mcp.server as unknown as { _requestHandlers?: Map<string, Handler> })._requestHandlers;
  const list = handlers?.get('tools/list');
  if (!handlers || !list) throw new Error('the MCP SDK no longer exposes its tools/list handler; update listToolsWithoutDialect');
  const strip = <T>(schema: T): T => {
    if (!schema || typeof schema !== 'object') return schema;
    const { $schema: _dialect, ...rest } = schema as Record<string, unknown>;
    return rest as T;
  };
  handlers.set('tools/list', async (req, extra) => {
    const res = await list(req, extra);
    return {
      ...res,
      tools: res.tools
        .map((t) => ({ ...t, inputSchema: strip(t.inputSchema), ...(t.outputSchema ? { outputSchema: strip(t.outputSchema) } : {}) }))
        .map((t) => forApps(t)), // safety: model-only-for-apps
    };
  });
}
