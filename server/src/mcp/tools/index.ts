/**
 * Every tool of the server, registered in one place. Two are conditional: `question_ask` is
 * listed only for clients that can elicit, `onboarding_plan_view` (the plan view's own data) only
 * for clients that declared the MCP Apps extension; their handles come back to the server
 * factory, which enables them once the client has said `initialized`.
 */
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolContext } from '../context.js';
import { registerAnalyzeTool } from './analyze.js';
import { registerApproveTool } from './approve.js';
import { registerMigrateTool } from './migrate.js';
import { registerProposeTool } from './propose.js';
import { registerQuestionAskTool } from './question-ask.js';
import { clientCanElicit } from '../elicit.js';
import { clientRendersApps } from '../plan-view.js';
import { registerPlanViewDataTool } from './plan-view-data.js';
import { registerQuestionSummaryTool } from './question-summary.js';
import { registerRollbackTool } from './rollback.js';
import { registerStatusTool } from './status.js';

export function registerTools(mcp: McpServer, ctx: ToolContext): void {
  registerStatusTool(mcp, ctx);
  registerAnalyzeTool(mcp, ctx);
  registerProposeTool(mcp, ctx);
  registerApproveTool(mcp, ctx);
  registerMigrateTool(mcp, ctx);
  registerRollbackTool(mcp, ctx);
  registerQuestionSummaryTool(mcp, ctx);
}

/** Tools listed only for some clients; call `enableFor` once the client has initialized. */
export function registerConditionalTools(mcp: McpServer, ctx: ToolContext): { enableFor: () => void } {
  const questionAsk: RegisteredTool = registerQuestionAskTool(mcp, ctx);
  // Disabled before connect (no notification); enabling after `initialized` sends list_changed.
  questionAsk.disable();
  const planViewData: RegisteredTool = registerPlanViewDataTool(mcp, ctx);
  planViewData.disable();
  return {
    enableFor: () => {
      if (clientCanElicit(mcp.server)) questionAsk.enable();
      if (clientRendersApps(mcp.server)) planViewData.enable();
    },
  };
}
