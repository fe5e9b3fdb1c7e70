/**
 * `copilot-onboarding status [--workspace DIR] [--json]`: the same record as onboarding_status, for a terminal. Reads only.
 * Security: the text comes from files in the workspace; it is sanitized before it reaches the terminal.
 */
import type { Command } from 'commander';
import { configFromEnv } from '../runtime/config.js';
import { workspaceStatus, type WorkspaceStatus } from '../app/status.js';
import { sanitizeLines } from '../core/sanitize.js';
import { jsonOk, resolveWorkspace, writeJson, type CliIo } from './common.js';

function statusLines(st: WorkspaceStatus): string[] {
  return [
    `Workspace:          ${st.workspace}`,
    `Status:             ${st.status}${st.pattern ? ` (pattern ${st.pattern})` : ''}`,
    ...(st.stateError ? [`State problem:      ${st.stateError.code}: ${st.stateError.message}${st.stateError.next ? ` ${st.stateError.next}` : ''}`] : []),
    `Plan:               ${st.currentPlan ? `${st.currentPlan.planId} (sha256 ${st.currentPlan.sha256.slice(0, 12)}…, ${st.currentPlan.operations} operations, ${st.currentPlan.createdAt})` : 'none'}`,
    `Approval:           ${
      st.approval ? `${st.approval.valid ? 'valid' : 'not valid'} (approved ${st.approval.approvedAt}, expires ${st.approval.expiresAt})${st.approval.reason ? ` — ${st.approval.reason}` : ''}` : 'none'
    }`,
    `Last migration:     ${
      st.lastMigration
        ? `${st.lastMigration.migrationId} (plan ${st.lastMigration.planId}, ${st.lastMigration.files} file(s), ${st.lastMigration.migratedAt}${st.lastMigration.rolledBackAt ? `, rolled back ${st.lastMigration.rolledBackAt}` : ''})`
        : 'none'
    }`,
    `Backup:             ${st.backup ? (st.backup.ok ? `ok (${st.backup.migrationId})` : `PROBLEM (${st.backup.migrationId}): ${st.backup.reason ?? 'unknown'}`) : 'none'}`,
    `Rollback available: ${st.rollbackAvailable ? 'yes (copilot-onboarding rollback)' : 'no'}`,
    ...(st.recovered ? [`Recovered:          ${st.recovered}`] : []),
    ...(st.pendingRecovery ? [`Pending recovery:   ${st.pendingRecovery}`] : []),
  ];
}

export function registerStatusCommand(program: Command, io: CliIo): void {
  program
    .command('status')
    .description('Show the onboarding state of a workspace (reads only).')
    .option('-w, --workspace <dir>', 'workspace root (else COPILOT_ONBOARDING_WORKSPACE, else the current folder)')
    .option('--json', 'print a JSON envelope {ok, command, data}')
    .action(async (o: { workspace?: string; json?: boolean }) => {
      const root = resolveWorkspace(o.workspace, io);
      const config = configFromEnv(io.env);
      const st = await workspaceStatus(root, config.approvalTtlMs, new Date(config.now()), 'cli');
      if (o.json) writeJson(io.stdout, jsonOk('status', st));
      else io.stdout.write(sanitizeLines(statusLines(st).join('\n')) + '\n');
    });
}
