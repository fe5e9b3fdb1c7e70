import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { clientCanElicit, clientIdentity } from '../elicit.js';
import type { ToolContext } from '../context.js';
import { registerTool } from './lazy-schemas.js';
import { guarded, success } from './call-result.js';

const statusOutput = () => ({
  workspace: z.string(),
  status: z.string().describe('new | analyzed | proposed | approved | migrated | rolled-back | unknown (state file unreadable)'),
  pattern: z.string().nullable(),
  stateError: z.object({ code: z.string(), message: z.string(), next: z.string().nullable() }).nullable(),
  currentPlan: z.object({ planId: z.string(), sha256: z.string(), createdAt: z.string(), operations: z.number().int() }).nullable(),
  approval: z.object({ planId: z.string(), valid: z.boolean(), approvedAt: z.string(), expiresAt: z.string(), reason: z.string().nullable() }).nullable(),
  lastMigration: z
    .object({ migrationId: z.string(), planId: z.string(), migratedAt: z.string(), rolledBackAt: z.string().nullable(), files: z.number().int() })
    .nullable(),
  backup: z.object({ migrationId: z.string(), ok: z.boolean(), reason: z.string().nullable() }).nullable(),
  rollbackAvailable: z.boolean(),
  recovered: z.string().nullable().describe('what recovery of an interrupted migration or rollback did before this status was read'),
  pendingRecovery: z.string().nullable(),
  client: z.object({ name: z.string(), version: z.string() }),
  capabilities: z.object({ elicitation: z.boolean(), sampling: z.boolean() }),
});

export function registerStatusTool(mcp: McpServer, ctx: ToolContext): void {
  registerTool(
    mcp,
    'onboarding_status',
    {
      title: 'Onboarding status',
      description:
        'Where the workspace stands: state, pattern, current plan, approval, last migration, backup health, rollback availability, and which ' +
        'client capabilities (elicitation, sampling) this session has. Reads only.',
      inputSchema: () => ({}),
      outputSchema: statusOutput,
      annotations: { title: 'Status', readOnlyHint: true, openWorldHint: false },
    },
    async () =>
      guarded(async () => {
        const { workspaceStatus } = await import('../../app/status.js');
        const root = await ctx.root();
        const st = await workspaceStatus(root, ctx.config.approvalTtlMs, new Date(ctx.now()));
        const caps = { elicitation: clientCanElicit(mcp.server), sampling: Boolean(mcp.server.getClientCapabilities()?.sampling) };
        const client = clientIdentity(mcp.server);
        const lines = [
          `Workspace: ${st.workspace}`,
          `Status: ${st.status}${st.pattern ? ` (pattern ${st.pattern})` : ''}`,
          ...(st.stateError ? [`State problem: ${st.stateError.message} ${st.stateError.next ?? ''}`] : []),
          `Plan: ${st.currentPlan ? `${st.currentPlan.planId} (${st.currentPlan.operations < 0 ? 'plan file unreadable' : `${st.currentPlan.operations} operations`})` : 'none'}`,
          `Approval: ${st.approval ? `${st.approval.valid ? 'valid' : 'not valid'} until ${st.approval.expiresAt}${st.approval.reason ? ` — ${st.approval.reason}` : ''}` : 'none'}`,
          `Last migration: ${st.lastMigration ? `${st.lastMigration.migrationId}${st.lastMigration.rolledBackAt ? ` (rolled back ${st.lastMigration.rolledBackAt})` : ''}` : 'none'}`,
          `Rollback available: ${st.rollbackAvailable ? 'yes' : 'no'}${st.backup && !st.backup.ok ? ` (backup problem: ${st.backup.reason})` : ''}`,
          ...(st.recovered ? [`Recovered: ${st.recovered}`] : []),
          ...(st.pendingRecovery ? [`Pending recovery: ${st.pendingRecovery}`] : []),
          `Client: ${client.name} ${client.version}; elicitation ${caps.elicitation ? 'yes' : 'no'}, sampling ${caps.sampling ? 'yes' : 'no'}` +
            (caps.elicitation ? '' : ' — approve, migrate and rollback will refuse in this client.'),
        ];
        return success(lines.join('\n'), { ...st, client, capabilities: caps });
      }),
  );
}
