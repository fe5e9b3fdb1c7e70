import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { MIGRATE_SCHEMA } from '../../core/approval.js';
import { backupRelPaths } from '../../io/layout.js';
import { Progress } from '../progress.js';
import type { ToolContext } from '../context.js';
import { registerTool } from './lazy-schemas.js';
import { REFUSED, success } from './call-result.js';
import { gateRefusal, runGate } from './gate.js';
import { errorShape } from './schemas.js';
import { thousands } from '../../core/sanitize.js';

const migrateInput = () => ({
  planId: z.string().optional().describe('The approved plan to apply (default: the current plan). Confirmation comes only from the human.'),
});

const migrateOutput = () => ({
  migrated: z.boolean(),
  planId: z.string(),
  migrationId: z.string().nullable(),
  written: z.array(z.object({ path: z.string(), op: z.string(), size: z.number().int(), sha256: z.string().nullable() })),
  backup: z.object({ archive: z.string(), manifest: z.string() }).nullable(),
  verified: z.boolean(),
  outcome: z.string(),
  trace: z.string().nullable(),
  error: errorShape().optional(),
});

export function registerMigrateTool(mcp: McpServer, ctx: ToolContext): void {
  registerTool(
    mcp,
    'onboarding_migrate',
    {
      title: 'Migrate (after approval)',
      description:
        'Apply an approved plan: asks the human to confirm in an elicitation form, makes a verified tar.gz backup of every file it modifies or deletes, ' +
        'writes crash-safely, then proves on disk that no byte was lost. Refuses without a valid approval, on a stale plan, or when another migration runs.',
      inputSchema: migrateInput,
      outputSchema: migrateOutput,
      annotations: { title: 'Migrate instructions', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ planId }, extra) =>
      runGate(
        mcp,
        ctx,
        extra,
        {
          action: 'migrate',
          tool: 'onboarding_migrate',
          step: 'Migration',
          subject: { planId: planId ?? null },
          refused: (outcome, trace, about) => ({ ...REFUSED.migrate, planId: typeof about.planId === 'string' ? about.planId : '', outcome, trace }),
        },
        async ({ root, ask, about }) => {
          const [{ migrateForm }, { formPaths }, { figureFor }, { migrateGate }] = await Promise.all([
            import('../../core/form-render.js'),
            import('../../app/gate-checks.js'),
            import('../../app/loads.js'),
            import('../../app/migrate.js'),
          ]);
          const progress = new Progress(extra);
          const gate = await migrateGate(
            root,
            planId,
            async ({ plan, snapshot, migrationId, approvalTrace }) => {
              const res = await ask({
                action: 'migrate',
                message: migrateForm(plan, { ...formPaths(plan.planId), archive: backupRelPaths(migrationId).archive }, figureFor(snapshot, plan)),
                requestedSchema: MIGRATE_SCHEMA,
                subject: { planId: plan.planId, planSha256: plan.sha256, migrationId, approvalTrace },
                mode: { kind: 'gate', requiredTrue: ['confirmed', 'understood_risks'] },
              });
              return { ...res, confirmed: res.outcome === 'approved' && !extra.signal.aborted };
            },
            {
              ttlMs: ctx.config.approvalTtlMs,
              now: () => ctx.now(),
              onPlan: (plan) => about({ planId: plan.planId }),
              onProgress: (step, done, total) => progress.send(step, total, done),
            },
          );
          const { plan } = gate.prep;
          const res = gate.answer;
          if (gate.kind === 'not-confirmed') {
            return gateRefusal(
              res,
              {
                tool: 'onboarding_migrate',
                notApproved: 'The migration was not confirmed',
                next: 'Run onboarding_migrate again when the human is ready.',
                aborted: extra.signal.aborted,
              },
              { ...REFUSED.migrate, planId: plan.planId, outcome: extra.signal.aborted ? 'cancelled' : res.outcome, trace: res.trace.path },
            )!;
          }
          const { migrationId } = gate.prep;
          const result = gate.result;
          const lines = [
            `Migrated with plan ${plan.planId} (migration ${migrationId}). Lossless check on disk passed.`,
            ...result.written.map((w) => `  ${w.op.padEnd(6)} ${w.path}${w.op === 'delete' ? '' : ` (${thousands(w.size)} bytes)`}`),
            `Backup: ${result.backup.archive} (manifest ${result.backup.manifest}).`,
            'To undo: onboarding_rollback, or `copilot-onboarding rollback` in a terminal.',
          ];
          return success(lines.join('\n'), {
            migrated: true,
            planId: plan.planId,
            migrationId,
            written: result.written,
            backup: result.backup,
            verified: result.verified,
            outcome: res.outcome,
            trace: res.trace.path,
          });
        },
      ),
  );
}
