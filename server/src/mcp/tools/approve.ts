import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { APPROVE_SCHEMA, NOTE_MAX_CHARS } from '../../core/approval.js';
import type { ToolContext } from '../context.js';
import { registerTool } from './lazy-schemas.js';
import { REFUSED, success } from './call-result.js';
import { gateRefusal, runGate } from './gate.js';
import { errorShape } from './schemas.js';
import { clientRendersApps } from '../plan-view.js';

const approveInput = () => ({
  planId: z.string().optional().describe('The plan to approve (default: the current plan from onboarding_propose). Approval itself comes only from the human.'),
});

const approveOutput = () => ({
  approved: z.boolean(),
  planId: z.string(),
  planSha256: z.string(),
  expiresAt: z.string().nullable(),
  comment: z.string().nullable(),
  outcome: z.string(),
  trace: z.string(),
  error: errorShape().optional(),
});

export function registerApproveTool(mcp: McpServer, ctx: ToolContext): void {
  registerTool(
    mcp,
    'onboarding_approve',
    {
      title: 'Ask the human to approve a plan',
      description:
        'Show the human the plan (id, hash, files to create/modify/delete, backup, problems, risk) in an MCP elicitation form and record an ' +
        'approval bound to the plan SHA-256 if, and only if, the human answers Yes/true to "Approve this plan". Needs a client with elicitation. Changes no instruction file.',
      inputSchema: approveInput,
      outputSchema: approveOutput,
      annotations: { title: 'Approve plan', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ planId }, extra) =>
      runGate(
        mcp,
        ctx,
        extra,
        {
          action: 'approve',
          tool: 'onboarding_approve',
          step: 'Approval',
          subject: { planId: planId ?? null },
          refused: (outcome, trace, about) => ({ ...REFUSED.approve, planId: typeof about.planId === 'string' ? about.planId : '', outcome, trace }),
        },
        async ({ root, ask, about }) => {
          const [{ approveForm }, { formPaths }, { approveGate }, { figureFor }] = await Promise.all([
            import('../../core/form-render.js'),
            import('../../app/gate-checks.js'),
            import('../../app/approve.js'),
            import('../../app/loads.js'),
          ]);
          const gate = await approveGate(
            root,
            planId,
            async (plan, snapshot) => {
              const res = await ask({
                action: 'approve',
                message: approveForm(plan, formPaths(plan.planId), figureFor(snapshot, plan), { planView: clientRendersApps(mcp.server) }),
                requestedSchema: APPROVE_SCHEMA,
                subject: { planId: plan.planId, planSha256: plan.sha256 },
                mode: { kind: 'gate', requiredTrue: ['approved'], optionalStrings: { comment: NOTE_MAX_CHARS } },
              });
              return { ...res, confirmed: res.outcome === 'approved', comment: typeof res.content?.comment === 'string' ? res.content.comment : null };
            },
            { ttlMs: ctx.config.approvalTtlMs, onPlan: (plan) => about({ planId: plan.planId }) },
          );
          const { plan, answer: res } = gate;
          const base = { planId: plan.planId, planSha256: plan.sha256, outcome: res.outcome, trace: res.trace.path };
          if (gate.kind === 'not-approved') {
            return gateRefusal(
              res,
              {
                tool: 'onboarding_approve',
                notApproved: `Plan ${plan.planId} was not approved`,
                next: 'Change the plan with onboarding_propose overrides, or ask again with onboarding_approve.',
              },
              { approved: false, expiresAt: null, comment: null, ...base },
            )!;
          }
          const { expiresAt, comment } = gate.approval;
          return success(`Plan ${plan.planId} approved by the human (valid until ${expiresAt}). Nothing was changed yet. Next: onboarding_migrate.`, {
            approved: true,
            expiresAt,
            comment,
            ...base,
          });
        },
      ),
  );
}
