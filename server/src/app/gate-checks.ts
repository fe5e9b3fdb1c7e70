/**
 * The checks every gate makes before acting on a plan: it exists, its sources are unchanged, and
 * (for migrate) a human approved exactly this plan. Each fails closed with an OnboardingError.
 */
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { sha256Hex } from '../core/canonical.js';
import { findApproval, type ApprovalCheck } from '../core/approval.js';
import type { Plan } from '../schemas/plan.js';
import type { OnboardingState } from '../schemas/state.js';
import type { ElicitationTrace } from '../schemas/trace.js';
import { readSnapshot } from '../io/snapshot.js';
import { loadPlan } from '../io/plans.js';
import { rel } from '../io/layout.js';
import type { FormPaths } from '../core/form-render.js';
import { loadState, workspaceId } from '../io/state.js';
import { TraceStore, verifyChain } from '../io/traces.js';
import { assertSourcesFresh, rederivePlan } from './rederive.js';
import { startedMigrationIds } from '../io/recovery.js';

/** The plan named, else the current one, as re-derived from the workspace (a forged or stale plan is refused). */
export async function resolvePlan(root: string, planId: string | undefined): Promise<{ plan: Plan; state: OnboardingState }> {
  const state = await loadState(root);
  const id = planId ?? state.currentPlan?.planId;
  if (!id) throw new OnboardingError(ErrorCode.PLAN_NOT_FOUND, 'There is no current plan.', { next: 'Run onboarding_propose first.' });
  return { plan: await rederivePlan(root, await loadPlan(root, id)), state };
}

/** Refuse when any source file changed since the plan was made. */
export async function assertFresh(root: string, plan: Plan): Promise<void> {
  assertSourcesFresh(plan, await readSnapshot(root));
}

/** Verify the chain, then find an unexpired, unused approval trace for this plan. Fails closed. */
export async function checkApproval(root: string, plan: Plan, ttlMs: number, now = new Date()): Promise<Extract<ApprovalCheck, { ok: true }>> {
  const report = await verifyChain(root, 'elicitation', { now: now.getTime() });
  if (!report.ok) {
    throw new OnboardingError(
      ErrorCode.TRACE_CHAIN_BROKEN,
      `The elicitation trace chain does not verify (${report.problems[0]?.message ?? 'broken'}), so no approval can be trusted.`,
      { next: 'Run `copilot-onboarding traces verify` to see which file is wrong; restore it, or start over in a fresh state folder.' },
    );
  }
  const all = await new TraceStore(root, 'elicitation').list();
  const traces = all.filter((t): t is { file: string; record: ElicitationTrace; error: null } => t.record !== null);
  const res = findApproval(plan, traces, now, ttlMs, await workspaceId(root), await startedMigrationIds(root));
  if (!res.ok) throw res.error;
  return res;
}

export function newMigrationId(plan: Plan, now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${plan.planId.slice(0, 8)}-${sha256Hex(`${now.getTime()}${Math.random()}`).slice(0, 6)}`;
}

/** Where a plan's file and the backups are, workspace-relative, as the gate forms show them. */
export function formPaths(planId: string): FormPaths {
  return { planFile: rel('plans', `${planId}.json`), backupsDir: `${rel('backups')}/` };
}
