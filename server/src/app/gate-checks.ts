/**
 * The checks every gate makes before acting on a plan: it exists, its sources are unchanged, and
 * (for migrate) a human approved exactly this plan. Each fails closed with an OnboardingError.
 */
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { sha256Hex } from '../core/canonical.js';
import { decisionFact, findApproval, foldDecisions, type ApprovalCheck } from '../core/approval.js';
import type { Plan } from '../schemas/plan.js';
import type { OnboardingState } from '../schemas/state.js';
import { readSnapshot } from '../io/snapshot.js';
import { loadPlan } from '../io/plans.js';
import { rel } from '../io/layout.js';
import type { FormPaths } from '../core/form-render.js';
import { loadState, loadTraceCheckpoint, saveTraceCheckpoint, workspaceId } from '../io/state.js';
import { recheckTrace, verifyChain } from '../io/traces.js';
import { loadUserKey } from '../io/user-key.js';
import { assertSourcesFresh, rederive } from './rederive.js';
import type { Snapshot } from '../core/types.js';
import { startedMigrationIds } from '../io/recovery.js';

/** The plan named, else the current one, as re-derived from the workspace (a forged or stale plan is refused). */
export async function resolvePlan(root: string, planId: string | undefined): Promise<{ plan: Plan; state: OnboardingState; snapshot: Snapshot }> {
  const state = await loadState(root);
  const id = planId ?? state.currentPlan?.planId;
  if (!id) throw new OnboardingError(ErrorCode.PLAN_NOT_FOUND, 'There is no current plan.', { next: 'Run onboarding_propose first.' });
  return { ...(await rederive(root, await loadPlan(root, id))), state };
}

/** Refuse when any source file changed since the plan was made. */
export async function assertFresh(root: string, plan: Plan): Promise<void> {
  assertSourcesFresh(plan, await readSnapshot(root));
}

/**
 * Verify the chain, then find an unexpired, unused, authenticated approval trace for this plan.
 * Fails closed. The chain is walked from the trace checkpoint when one authenticates (only the
 * traces appended since it are read, each once), and the checkpoint is moved to the new end.
 */
export async function checkApproval(root: string, plan: Plan, ttlMs: number, now = new Date()): Promise<Extract<ApprovalCheck, { ok: true }>> {
  // Without the per-user key no approval can authenticate; the chain is still checked first.
  const key = await loadUserKey();
  const workspace = await workspaceId(root);
  const checkpoint = key ? await loadTraceCheckpoint(root, key, workspace) : null;
  const report = await verifyChain(root, 'elicitation', {
    now: now.getTime(),
    key,
    from: checkpoint?.link ?? null,
    facts: decisionFact,
  });
  if (!report.ok) throw broken(report.problems[0]?.message ?? 'broken');
  const facts = report.facts.map(({ seq, file, authenticated, fact }) => ({ ...fact, seq, file, authenticated }));
  const ledger = foldDecisions(report.from !== null && checkpoint ? checkpoint.ledger : {}, facts);
  const end = report.end;
  if (key && end && end.seq > 0 && (checkpoint?.link.seq !== end.seq || report.from === null)) {
    // Only a cache of the walk: one that cannot be written costs the next gate time, nothing else.
    await saveTraceCheckpoint(root, key, workspace, end, ledger, now).catch(() => undefined);
  }
  const res = findApproval(plan, ledger, now, ttlMs, workspace, await startedMigrationIds(root));
  if (!res.ok) throw res.error;
  // The approval may have been read before the checkpoint: read it again (one file, whatever the history).
  const changed = key ? await recheckTrace(root, 'elicitation', res.trace.file, res.trace.sha256, key) : 'no per-user trace key';
  if (changed) throw broken(changed); // safety: approval-reread
  return res;
}

function broken(why: string): OnboardingError {
  return new OnboardingError(ErrorCode.TRACE_CHAIN_BROKEN, `The elicitation trace chain does not verify (${why}), so no approval can be trusted.`, {
    next: 'Run `copilot-onboarding traces verify` to see which file is wrong; restore it, or start over in a fresh state folder.',
  });
}

export function newMigrationId(plan: Plan, now = new Date()): string {
  return `${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${plan.planId.slice(0, 8)}-${sha256Hex(`${now.getTime()}${Math.random()}`).slice(0, 6)}`;
}

/** Where a plan's file and the backups are, workspace-relative, as the gate forms show them. */
export function formPaths(planId: string): FormPaths {
  return { planFile: rel('plans', `${planId}.json`), backupsDir: `${rel('backups')}/` };
}
