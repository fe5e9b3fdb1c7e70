/**
 * Steps shared by the MCP tools and the CLI: load -> pure core -> store. No SDK imports.
 */
import { promises as fsp } from 'node:fs';
import { analyze } from '../core/analyze.js';
import { buildPlan } from '../core/plan.js';
import type { Analysis, Snapshot } from '../core/types.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { sha256Hex } from '../core/canonical.js';
import { findApproval, type ApprovalCheck } from '../core/approval.js';
import type { Override, Plan } from '../schemas/plan.js';
import type { OnboardingState } from '../schemas/state.js';
import { readSnapshot } from '../io/snapshot.js';
import { assertRealInside, resolveInside } from '../io/workspace.js';
import { loadPlan, savePlan } from '../io/plans.js';
import { loadState, updateState } from '../io/state.js';
import { TraceStore, verifyChain } from '../io/traces.js';
import { recoverInterrupted } from '../io/migration.js';
import { backupRelPaths, readManifest } from '../io/backup.js';
import type { ElicitationTrace } from '../schemas/trace.js';

export interface Recovery {
  status: string;
  migrationId: string | null;
  message: string;
}

/** Finish or undo an interrupted migration/rollback before doing anything else. */
export async function recover(root: string): Promise<Recovery | null> {
  const r = await recoverInterrupted(root);
  if (r.status === 'none') return null;
  if (r.status === 'busy') {
    throw new OnboardingError(ErrorCode.BUSY, r.message, { next: 'Wait for the running migration or rollback to finish, then try again.' });
  }
  if (r.status === 'clean' && r.migrationId) await recordFinishedMigration(root, r.migrationId);
  return { status: r.status, migrationId: r.migrationId ?? null, message: r.message };
}

/**
 * A migration that finished on disk but died before onboarding.json was updated: record it from
 * its manifest so that status shows it and rollback finds it without an explicit id.
 */
async function recordFinishedMigration(root: string, migrationId: string): Promise<void> {
  const manifest = await readManifest(root, migrationId);
  const rel = backupRelPaths(migrationId);
  await updateState(root, (s) => {
    if (s.migrations.some((m) => m.migrationId === migrationId)) return;
    s.status = 'migrated';
    s.approval = null;
    s.migrations.push({
      migrationId,
      planId: manifest.planId,
      planSha256: manifest.planSha256,
      migratedAt: manifest.createdAt,
      backup: rel.archive,
      manifest: rel.manifest,
      written: manifest.written.map((w) => ({ path: w.path, op: w.op })),
      rolledBackAt: null,
    });
  });
}

export async function snapshotAndAnalyze(root: string): Promise<{ snapshot: Snapshot; analysis: Analysis }> {
  const snapshot = await readSnapshot(root);
  const analysis = analyze(snapshot);
  return { snapshot, analysis };
}

export async function propose(root: string, overrides: Override[] | undefined, now = new Date().toISOString()): Promise<{ plan: Plan; planFile: string; analysis: Analysis }> {
  const { snapshot, analysis } = await snapshotAndAnalyze(root);
  if (!snapshot.sources.some((s) => s.kind === 'copilot-repo') && !snapshot.sources.some((s) => s.kind === 'copilot-path')) {
    const refused = snapshot.refused.find((r) => r.kind === 'copilot-repo');
    if (refused) {
      throw new OnboardingError(ErrorCode.SOURCE_REFUSED, `${refused.path} cannot be read safely: ${refused.reason}.`, { next: 'Fix the file (see the reason) and run onboarding_propose again.' });
    }
    throw new OnboardingError(ErrorCode.NO_SOURCES, 'No .github/copilot-instructions.md or .github/instructions/*.instructions.md was found in the workspace.', {
      next: 'Check the workspace folder (--workspace, COPILOT_ONBOARDING_WORKSPACE or the client root).',
    });
  }
  const plan = buildPlan({ snapshot, analysis, overrides: overrides ?? [] });
  await assertApplicable(root, plan);
  const planFile = await savePlan(root, plan);
  await updateState(
    root,
    (s) => {
      s.status = 'proposed';
      s.pattern = plan.pattern;
      s.currentPlan = { planId: plan.planId, sha256: plan.sha256, createdAt: now };
      if (s.approval && s.approval.planSha256 !== plan.sha256) s.approval = null;
    },
    now,
  );
  return { plan, planFile, analysis };
}

/**
 * Refuse, at propose time, a plan that migrate could never apply: a file it modifies or
 * deletes that is a symlink (the migration would replace the link), or an output whose real
 * location is outside the workspace (e.g. `.github/instructions` linked elsewhere).
 */
async function assertApplicable(root: string, plan: Plan): Promise<void> {
  for (const op of plan.operations) {
    const abs = resolveInside(root, op.path);
    if (op.op !== 'create') {
      const st = await fsp.lstat(abs);
      if (st.isSymbolicLink()) {
        const target = await fsp.readlink(abs);
        throw new OnboardingError(ErrorCode.SOURCE_REFUSED, `${op.path} is a symlink (a symbolic link to ${target}); migrating would replace the link with a file.`, {
          next: `Replace the link with the file it points to (or point the workspace at the real file's repository), then run onboarding_propose again.`,
        });
      }
    }
    try {
      await assertRealInside(root, abs);
    } catch (e) {
      if (e instanceof OnboardingError) {
        throw new OnboardingError(ErrorCode.PATH_OUTSIDE_WORKSPACE, `The plan would write ${op.path}, whose folder leads outside the workspace through a symbolic link.`, {
          next: 'Remove or fix the link (e.g. .github/instructions), then run onboarding_propose again.',
        });
      }
      throw e;
    }
  }
}

/** The plan named, else the current one. */
export async function resolvePlan(root: string, planId: string | undefined): Promise<{ plan: Plan; state: OnboardingState }> {
  const state = await loadState(root);
  const id = planId ?? state.currentPlan?.planId;
  if (!id) throw new OnboardingError(ErrorCode.PLAN_NOT_FOUND, 'There is no current plan.', { next: 'Run onboarding_propose first.' });
  return { plan: await loadPlan(root, id), state };
}

/** Refuse when any source file changed since the plan was made. */
export async function assertFresh(root: string, plan: Plan): Promise<void> {
  const snapshot = await readSnapshot(root);
  const now = new Map(snapshot.sources.map((s) => [s.path, s.sha256]));
  const changed: string[] = [];
  for (const s of plan.sources) if (now.get(s.path) !== s.sha256) changed.push(s.path);
  for (const s of snapshot.sources) if (s.kind !== 'other-agent' && !plan.sources.some((p) => p.path === s.path)) changed.push(`${s.path} (new)`);
  if (changed.length) {
    throw new OnboardingError(ErrorCode.PLAN_STALE, `Stale plan: ${changed.join(', ')} changed since plan ${plan.planId} was proposed.`, {
      next: 'Run onboarding_propose again, then approve the new plan.',
    });
  }
}

/** Verify the chain, then find an unexpired, unused approval trace for this plan. Fails closed. */
export async function checkApproval(root: string, plan: Plan, ttlMs: number, now = new Date()): Promise<Extract<ApprovalCheck, { ok: true }>> {
  const report = await verifyChain(root, 'elicitation');
  if (!report.ok) {
    throw new OnboardingError(
      ErrorCode.TRACE_CHAIN_BROKEN,
      `The elicitation trace chain does not verify (${report.problems[0]?.message ?? 'broken'}), so no approval can be trusted.`,
      { next: 'Run `copilot-onboarding traces verify` to see which file is wrong; restore it, or start over in a fresh state folder.' },
    );
  }
  const all = await new TraceStore(root, 'elicitation').list();
  const traces = all.filter((t): t is { file: string; record: ElicitationTrace; error: null } => t.record !== null);
  const res = findApproval(plan, traces, now, ttlMs);
  if (!res.ok) throw res.error;
  return res;
}

export function newMigrationId(plan: Plan, now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${plan.planId.slice(0, 8)}-${sha256Hex(`${now.getTime()}${Math.random()}`).slice(0, 6)}`;
}
