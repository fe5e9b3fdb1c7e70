/**
 * Pure gate logic for approve / migrate / rollback: the form fields the human answers (the
 * text they read is core/form-render) and the rule that decides whether a plan is approved. An approval exists only as an `approved`
 * approve-trace for the plan's SHA-256 in an intact chain, not yet used by a migration and
 * not expired — onboarding.json is a cache of that, never the proof. An approval is used by
 * a later `approved` migrate trace only when the migration that trace names started (its
 * backup, state record or journal exists): a migrate refused after the human confirmed,
 * before it changed anything, leaves the approval valid.
 */
import type { ElicitationTrace } from '../schemas/trace.js';
import type { Plan } from '../schemas/plan.js';
import { ErrorCode, OnboardingError } from './errors.js';
import { gateSchema, type RequestedSchema } from './gates.js';

/** Maximum length of the optional comment / reason fields (also sent as maxLength in the form). */
export const NOTE_MAX_CHARS = 2000;

export const APPROVE_SCHEMA: RequestedSchema = gateSchema(
  [{ name: 'approved', title: 'Approve this plan', description: 'Choose Yes/true to approve the plan described in the message. No/false, or declining, refuses it.' }],
  [{ name: 'comment', title: 'Comment (optional)', description: 'Anything to record with your decision.', maxLength: NOTE_MAX_CHARS }],
);

export const MIGRATE_SCHEMA: RequestedSchema = gateSchema([
  { name: 'confirmed', title: 'Yes, migrate now', description: 'Choose Yes/true to write the files the message lists, now. No/false, or declining, changes nothing.' },
  {
    name: 'understood_risks',
    title: 'I understand a backup is made and rollback is available',
    description: 'Choose Yes/true to confirm you read the risk and backup lines of the message.',
  },
]);

export const ROLLBACK_SCHEMA: RequestedSchema = gateSchema(
  [{ name: 'confirmed', title: 'Yes, roll back', description: 'Choose Yes/true to restore the files the message lists from the backup. No/false, or declining, changes nothing.' }],
  [{ name: 'reason', title: 'Reason (optional)', description: 'Why you are rolling back.', maxLength: NOTE_MAX_CHARS }],
);

/**
 * When an approval stops counting: its approve trace's timestamp (when the form was shown) plus
 * the TTL. The one expiry rule: sealed into the trace as `expires_at`, shown by onboarding_approve,
 * and enforced by findApproval (with the TTL configured at that time).
 */
export function approvalExpiry(approvedAt: string, ttlMs: number): string {
  return new Date(Date.parse(approvedAt) + ttlMs).toISOString();
}

export type ApprovalCheck =
  | { ok: true; trace: { file: string; record: ElicitationTrace }; expiresAt: string }
  | { ok: false; error: OnboardingError };

/**
 * Decide from the (verified) trace chain whether `plan` is approved at `now` in the workspace
 * `workspaceId`. `traces` must come from a chain that verified intact; `started` holds the ids
 * of every migration that began writing (a backup, a state record or the journal names it).
 *
 * Security: an approval counts only in the workspace it was given in (a copied trace folder
 * carries another id) and only until the earlier of its sealed `expires_at` and its timestamp
 * plus the TTL configured now. Old-format (@1) approvals carry neither and are not honoured.
 */
export function findApproval(
  plan: Plan,
  traces: ReadonlyArray<{ file: string; record: ElicitationTrace }>,
  now: Date,
  ttlMs: number,
  workspaceId: string,
  started: ReadonlySet<string>,
): ApprovalCheck {
  const refuse = (code: ErrorCode, message: string, next: string): ApprovalCheck => ({ ok: false, error: new OnboardingError(code, message, { next }) });
  const forPlan = traces.filter((t) => (t.record.subject as { planSha256?: unknown }).planSha256 === plan.sha256);
  const approvals = forPlan.filter((t) => t.record.action === 'approve');
  const last = approvals[approvals.length - 1];
  if (!last || last.record.outcome !== 'approved') {
    return refuse(
      ErrorCode.NOT_APPROVED,
      last
        ? `Plan ${plan.planId} is not approved: the last approval request ended "${last.record.outcome}".`
        : `Plan ${plan.planId} is not approved: no approval trace exists for its SHA-256 (${plan.sha256.slice(0, 12)}…).`,
      'Run onboarding_approve and let the human approve the plan.',
    );
  }
  const used = forPlan.find((t) => {
    if (t.record.action !== 'migrate' || t.record.outcome !== 'approved' || t.record.seq <= last.record.seq) return false;
    const id = (t.record.subject as { migrationId?: unknown }).migrationId;
    // A confirmed migrate trace without a migration id cannot be matched: count it as used (fail closed).
    return typeof id !== 'string' || started.has(id);
  });
  if (used) return refuse(ErrorCode.NOT_APPROVED, `The approval of plan ${plan.planId} was already used by a migration (${used.file}).`, 'Run onboarding_propose and onboarding_approve again.'); // safety: approval-used-once
  if (last.record.workspace !== workspaceId) { // safety: approval-workspace
    return refuse(
      ErrorCode.NOT_APPROVED,
      last.record.workspace === undefined
        ? `The approval of plan ${plan.planId} (${last.file}) was recorded by an older version, without a workspace id or expiry.`
        : `The approval of plan ${plan.planId} (${last.file}) was given in another workspace (its traces were copied here).`,
      'Run onboarding_approve again in this workspace.',
    );
  }
  const sealed = Date.parse(last.record.expires_at ?? '');
  const expiresAt = new Date(Math.min(Date.parse(approvalExpiry(last.record.timestamp, ttlMs)), Number.isNaN(sealed) ? -Infinity : sealed));
  if (!(expiresAt.getTime() > now.getTime())) return refuse(ErrorCode.APPROVAL_EXPIRED, `The approval of plan ${plan.planId} expired at ${expiresAt.toISOString()}.`, 'Run onboarding_approve again.'); // safety: approval-expiry
  return { ok: true, trace: last, expiresAt: expiresAt.toISOString() };
}
