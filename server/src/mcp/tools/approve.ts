import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { APPROVE_SCHEMA, NOTE_MAX_CHARS, approveMessage } from '../../core/approval.js';
import { ErrorCode } from '../../core/errors.js';
import { elicit } from '../elicit.js';
import { updateState } from '../../io/state.js';
import { assertFresh, resolvePlan } from '../../app/plan-checks.js';
import { recover } from '../../app/recover.js';
import type { ToolContext } from '../context.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { REFUSED, gateRefusal, guarded, refusal, success, withRecovery } from './result.js';
import { errorShape } from './schemas.js';

export const approveInput = {
  planId: z.string().optional().describe('The plan to approve (default: the current plan from onboarding_propose). Approval itself comes only from the human.'),
};

export const approveOutput = {
  approved: z.boolean(),
  planId: z.string(),
  planSha256: z.string(),
  expiresAt: z.string().nullable(),
  comment: z.string().nullable(),
  outcome: z.string(),
  trace: z.string(),
  error: errorShape.optional(),
};

export function registerApproveTool(mcp: McpServer, ctx: ToolContext): void {
  mcp.registerTool(
    'onboarding_approve',
    {
      title: 'Ask the human to approve a plan',
      description:
        'Show the human the plan (id, hash, files to create/modify/delete, backup, problems, risk) in an MCP elicitation form and record an ' +
        'approval bound to the plan SHA-256 if, and only if, the human ticks "approved". Needs a client with elicitation. Changes no instruction file.',
      inputSchema: approveInput,
      outputSchema: approveOutput,
      annotations: { title: 'Approve plan', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ planId }, extra) => {
      const run = async (root: string): Promise<CallToolResult> => {
        const { plan } = await resolvePlan(root, planId);
        if (plan.operations.length === 0) {
          return refusal({ code: ErrorCode.NOTHING_TO_MIGRATE, message: `Plan ${plan.planId} has no operations: there is nothing to approve.`, next: 'Use overrides in onboarding_propose to move sections, or stop here.' }, { ...REFUSED.approve, planId: plan.planId, planSha256: plan.sha256 });
        }
        await assertFresh(root, plan);
        const res = await elicit(
          mcp.server,
          extra,
          {
            action: 'approve',
            message: approveMessage(plan),
            requestedSchema: APPROVE_SCHEMA,
            subject: { planId: plan.planId, planSha256: plan.sha256 },
            mode: { kind: 'gate', requiredTrue: ['approved'], optionalStrings: { comment: NOTE_MAX_CHARS } },
            timeoutMs: ctx.config.approvalTimeoutMs,
            heartbeatMs: ctx.config.heartbeatMs,
            now: () => ctx.now(),
          },
          ctx.elicitationTraces(root),
        );
        const base = { planId: plan.planId, planSha256: plan.sha256, outcome: res.outcome, trace: res.trace.path };
        const refused = gateRefusal(
          res,
          {
            step: 'Approval',
            notApproved: `Plan ${plan.planId} was not approved`,
            next: 'Change the plan with onboarding_propose overrides, or ask again with onboarding_approve.',
            nextUnsupported: 'Use a client with elicitation (VS Code Copilot, Copilot CLI, Claude Code, Cursor; see docs/clients.md).',
          },
          { approved: false, expiresAt: null, comment: null, ...base },
        );
        if (refused) return refused;
        const comment = typeof res.content?.comment === 'string' ? res.content.comment : null;
        const approvedAt = new Date(ctx.now() - res.durationMs).toISOString();
        const expiresAt = new Date(Date.parse(approvedAt) + ctx.config.approvalTtlMs).toISOString();
        await updateState(root, (s) => {
          s.status = 'approved';
          s.approval = {
            planId: plan.planId,
            planSha256: plan.sha256,
            approvedAt,
            expiresAt,
            trace: res.trace.file,
            traceSeq: res.trace.seq,
            traceSha256: res.trace.sha256,
            comment,
          };
        });
        return success(`Plan ${plan.planId} approved by the human (valid until ${expiresAt}). Nothing was changed yet. Next: onboarding_migrate.`, {
          approved: true,
          expiresAt,
          comment,
          ...base,
        });
      };
      return guarded(async () => {
        const root = await ctx.root();
        const recovery = await recover(root);
        return withRecovery(await run(root), recovery);
      }, REFUSED.approve);
    },
  );
}
