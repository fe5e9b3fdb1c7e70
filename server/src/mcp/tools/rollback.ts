/**
 * onboarding_rollback: the MCP channel of the rollback gate (app/rollback). This file only
 * asks through an elicitation form and turns the gate's result into a tool result; what is
 * checked before and after the question lives in the gate, shared with the terminal command.
 */
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { NOTE_MAX_CHARS, ROLLBACK_SCHEMA } from '../../core/approval.js';
import { Progress } from '../progress.js';
import { ErrorCode } from '../../core/errors.js';
import type { ToolContext } from '../context.js';
import { registerTool } from './lazy-schemas.js';
import { REFUSED, refusal, success } from './call-result.js';
import { gateRefusal, runGate } from './gate.js';
import { errorShape } from './schemas.js';

const rollbackInput = () => ({
  migrationId: z.string().optional().describe('The migration to undo (default: the last one not rolled back). Confirmation comes only from the human.'),
});

const rollbackOutput = () => ({
  rolledBack: z.boolean(),
  migrationId: z.string().nullable(),
  restored: z.array(z.string()),
  removed: z.array(z.string()),
  editedSinceMigration: z.array(z.string()),
  savedEdits: z.array(z.string()).optional().describe('Where the files edited since the migration were saved (workspace-relative) before they were restored or removed.'),
  outcome: z.string(),
  trace: z.string().nullable(),
  error: errorShape().optional(),
});

export function registerRollbackTool(mcp: McpServer, ctx: ToolContext): void {
  registerTool(
    mcp,
    'onboarding_rollback',
    {
      title: 'Roll back a migration',
      description:
        'Restore every file a migration changed, byte for byte, from its tar.gz backup and remove the files it created. Checks the backup against ' +
        'its manifest first and lists files edited since the migration (their edits would be lost) in the confirmation form. Needs elicitation.',
      inputSchema: rollbackInput,
      outputSchema: rollbackOutput,
      annotations: { title: 'Roll back migration', readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    },
    async ({ migrationId }, extra) =>
      runGate(
        mcp,
        ctx,
        extra,
        {
          action: 'rollback',
          tool: 'onboarding_rollback',
          step: 'Rollback',
          subject: { migrationId: migrationId ?? null },
          alternative: 'an operator can run `copilot-onboarding rollback` in a terminal',
          refused: (outcome, trace, about) => ({ ...REFUSED.rollback, migrationId: typeof about.migrationId === 'string' ? about.migrationId : null, outcome, trace }),
        },
        async ({ root, ask }) => {
          const { rollbackGate } = await import('../../app/rollback.js');
          const progress = new Progress(extra);
          const gate = await rollbackGate(
            root,
            migrationId,
            async (prep) => {
              const res = await ask({
                action: 'rollback',
                message: prep.message,
                requestedSchema: ROLLBACK_SCHEMA,
                subject: { migrationId: prep.migrationId, planId: prep.manifest.planId, planSha256: prep.manifest.planSha256, editedSinceMigration: prep.edited },
                mode: { kind: 'gate', requiredTrue: ['confirmed'], optionalStrings: { reason: NOTE_MAX_CHARS } },
              });
              return { ...res, confirmed: res.outcome === 'approved' && !extra.signal.aborted };
            },
            { onProgress: (step, n, total) => progress.send(step, total, n), now: () => ctx.now() },
          );
          const { prep, answer: res } = gate;
          const empty = { ...REFUSED.rollback, migrationId: prep.migrationId, editedSinceMigration: prep.edited };
          const outcome = extra.signal.aborted ? 'cancelled' : res.outcome;
          if (gate.kind === 'not-confirmed') {
            return gateRefusal(
              res,
              {
                tool: 'onboarding_rollback',
                notApproved: 'The rollback was not confirmed',
                next: 'Run onboarding_rollback again when the human is ready.',
                aborted: extra.signal.aborted,
              },
              { ...empty, outcome, trace: res.trace.path },
            )!;
          }
          if (gate.kind === 'changed') {
            return refusal(
              { code: ErrorCode.NOT_CONFIRMED, message: `Not rolled back: ${gate.reason}`, next: 'Run onboarding_rollback again: the new form shows the current list.' },
              { ...empty, editedSinceMigration: gate.current.edited, outcome, trace: res.trace.path },
            );
          }
          const lines = [
            `Rolled back migration ${prep.migrationId}: the workspace is byte-identical to before the migration.`,
            ...gate.restored.map((p) => `  restored ${p}`),
            ...gate.removed.map((p) => `  removed  ${p}`),
            ...(gate.saved.length ? [`Files edited since the migration were saved first: ${gate.saved.join(', ')}`] : []),
            'Next: onboarding_propose starts a fresh plan.',
          ];
          return success(lines.join('\n'), { ...empty, rolledBack: true, restored: gate.restored, removed: gate.removed, savedEdits: gate.saved, outcome: res.outcome, trace: res.trace.path });
        },
      ),
  );
}
