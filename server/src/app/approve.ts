/**
 * The approve gate, read like migrate (app/migrate.ts) and rollback (app/rollback.ts): the
 * channel checks it can ask (mcp/tools/gate.ts) → re-derive the plan (a forged or stale plan is
 * refused) → ask the human (the channel's form, traced before it returns) → re-check that no
 * source changed while the question was open → record the approval in onboarding.json.
 *
 * The record is a cache: what migrate trusts is the approve trace in the chain
 * (core/approval findApproval), and its expiry is the one core/approval approvalExpiry computes
 * from that trace's timestamp, the same instant sealed into the trace.
 */
import { approvalExpiry } from '../core/approval.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import type { Plan } from '../schemas/plan.js';
import type { Snapshot } from '../core/types.js';
import type { Approval } from '../schemas/state.js';
import { updateState } from '../io/state.js';
import { assertFresh, resolvePlan } from './gate-checks.js';
import type { GateAnswer } from './rollback.js';

export type ApproveGateResult<A extends GateAnswer> =
  | { kind: 'not-approved'; plan: Plan; answer: A }
  | { kind: 'approved'; plan: Plan; answer: A; approval: Approval };

export async function approveGate<A extends GateAnswer & { comment: string | null }>(
  root: string,
  planId: string | undefined,
  ask: (plan: Plan, snapshot: Snapshot) => Promise<A>,
  opts: { ttlMs: number; onPlan?: ((plan: Plan) => void) | undefined },
): Promise<ApproveGateResult<A>> {
  const { plan, snapshot } = await resolvePlan(root, planId);
  opts.onPlan?.(plan);
  if (plan.operations.length === 0) {
    throw new OnboardingError(ErrorCode.NOTHING_TO_MIGRATE, `Plan ${plan.planId} has no operations: there is nothing to approve.`, {
      next: 'Use overrides in onboarding_propose to move sections, or stop here.',
    });
  }
  const answer = await ask(plan, snapshot);
  if (!answer.confirmed) return { kind: 'not-approved', plan, answer };
  await assertFresh(root, plan); // safety: approve-recheck
  const approval: Approval = {
    planId: plan.planId,
    planSha256: plan.sha256,
    approvedAt: answer.trace.timestamp,
    expiresAt: approvalExpiry(answer.trace.timestamp, opts.ttlMs),
    trace: answer.trace.file,
    traceSeq: answer.trace.seq,
    traceSha256: answer.trace.sha256,
    comment: answer.comment,
  };
  await updateState(root, (s) => {
    s.status = 'approved';
    s.approval = approval;
  });
  return { kind: 'approved', plan, answer, approval };
}
