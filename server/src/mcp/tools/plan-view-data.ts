/**
 * `onboarding_plan_view`: the plan view's own data, for the view only (MCP Apps visibility
 * `["app"]`, set where every tool's visibility is set: mcp/plan-view.ts forApps). The view gets
 * propose's result, whose diff is bounded because the model reads it too; it then asks this tool
 * for the whole plan (every file, glob and section, every line of the repository-wide diff)
 * through its host. Listed only for clients that declared the Apps extension (enabled in
 * oninitialized, like question_ask), so every other client's tools/list is as it was.
 *
 * Reads only: one stored plan, made again from the workspace (app/plan-view.ts wholePlanView);
 * it writes no file, state, trace or plan and asks nothing.
 */
import { z } from 'zod';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolContext } from '../context.js';
import { PLAN_VIEW_DATA_TOOL, planViewShape } from '../plan-view.js';
import { registerTool } from './lazy-schemas.js';
import { guarded, success } from './call-result.js';

const input = () => ({
  planId: z.string().max(100).describe('The planId of an onboarding_propose result (16 hex characters).'),
});

const output = () => ({
  planId: z.string(),
  sha256: z.string(),
  riskReasons: z.array(z.string()),
  planView: planViewShape(true),
});

export function registerPlanViewDataTool(mcp: McpServer, ctx: ToolContext): RegisteredTool {
  return registerTool(
    mcp,
    PLAN_VIEW_DATA_TOOL,
    {
      title: 'Plan view data',
      description:
        'For the plan view (MCP App) only: the whole view of one stored plan (every file, glob and section, every line of the ' +
        "repository-wide file's diff), made again from the workspace; a changed or altered plan is refused. Reads only.",
      inputSchema: input,
      outputSchema: output,
      annotations: { title: 'Plan view data', readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ planId }) =>
      guarded(async () => {
        const { wholePlanView } = await import('../../app/plan-view.js');
        const data = await wholePlanView(await ctx.root(), planId);
        const d = data.planView.repoWideDiff;
        return success(`Plan view data of plan ${data.planId}: ${data.planView.files.length} file(s)${d ? `, ${d.rows.length} diff row(s) of ${d.path}` : ''}.`, data);
      }),
  );
}
