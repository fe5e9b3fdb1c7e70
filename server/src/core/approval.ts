/**
 * Pure gate logic for approve / migrate / rollback: the form fields the human answers (the
 * text they read is core/form-render) and the rule that decides whether a plan is approved. An approval exists only as an `approved`
 * approve-trace for the plan's SHA-256 in an intact chain, authenticated with the per-user trace
 * key, not yet used by a migration and not expired — onboarding.json is a cache of that, never the proof. An approval is used by
 * a later `approved` migrate trace only when the migration that trace names started (its
 * backup, state record or journal exists): a migrate refused after the human confirmed,
 * before it changed anything, leaves the approval valid.
 */
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

/**
 * What a gate needs to know of one approve or confirmed migrate trace: read once, when the chain
 * is verified, and kept (per plan SHA-256) in the trace checkpoint's ledger, so that a gate never
 * reads the traces before the checkpoint again.
 */
export interface DecisionFact {
  seq: number;
  file: string;
  /** The record's own `sha256`: the gate re-reads the approval it relies on and checks it is still this record. */
  sha256: string;
  action: 'approve' | 'migrate';
  planSha256: string;
  outcome: string;
  timestamp: string;
  /** @2+: the workspace id sealed in the record; null in older records. */
  workspace: string | null;
  /** @2+, approved approve: the sealed expiry. */
  expiresAt: string | null;
  /** migrate: the migration the confirmation started (null when the record names none). */
  migrationId: string | null;
  /** The record authenticated with the per-user trace key (format @3, its `mac`). */
  authenticated: boolean;
}

/** Per plan SHA-256: its last approve trace, and the confirmed migrate traces after it. */
export type ApprovalLedger = Record<string, { approve: DecisionFact; migrates: DecisionFact[] }>;

/** The decision-relevant part of a trace record, or null for any other record (questions, refusals, rollbacks). */
export function decisionFact(rec: Record<string, unknown>): Omit<DecisionFact, 'seq' | 'file' | 'authenticated'> | null {
  const subject = rec.subject as { planSha256?: unknown; migrationId?: unknown } | undefined;
  const planSha256 = subject?.planSha256;
  if (typeof planSha256 !== 'string' || !/^[0-9a-f]{64}$/.test(planSha256)) return null;
  if (rec.action !== 'approve' && !(rec.action === 'migrate' && rec.outcome === 'approved')) return null;
  return {
    sha256: String(rec.sha256),
    action: rec.action,
    planSha256,
    outcome: String(rec.outcome),
    timestamp: String(rec.timestamp),
    workspace: typeof rec.workspace === 'string' ? rec.workspace : null,
    expiresAt: typeof rec.expires_at === 'string' ? rec.expires_at : null,
    migrationId: typeof subject?.migrationId === 'string' ? subject.migrationId : null,
  };
}

/** The ledger after `facts` (in seq order, after the ones already folded into `ledger`). A new ledger; the input is not changed. */
export function foldDecisions(ledger: ApprovalLedger, facts: ReadonlyArray<DecisionFact>): ApprovalLedger {
  const out: ApprovalLedger = { ...ledger };
  for (const f of facts) {
    if (f.action === 'approve') {
      out[f.planSha256] = { approve: f, migrates: [] };
    } else {
      const entry = out[f.planSha256];
      if (entry && f.seq > entry.approve.seq) out[f.planSha256] = { approve: entry.approve, migrates: [...entry.migrates, f] };
    }
  }
  return out;
}

export type ApprovalCheck =
  | { ok: true; trace: DecisionFact; expiresAt: string }
  | { ok: false; error: OnboardingError };

/**
 * Decide from the (verified) trace chain whether `plan` is approved at `now` in the workspace
 * `workspaceId`. `ledger` must come from a chain that verified intact (foldDecisions over its
 * decision facts); `started` holds the ids of every migration that began writing (a backup, a
 * state record or the journal names it).
 *
 * Security: an approval counts only when its record authenticates with the per-user trace key
 * (an agent that can write the workspace cannot make one), only in the workspace it was given in
 * (a copied trace folder carries another id), and only until the earlier of its sealed
 * `expires_at` and its timestamp plus the TTL configured now. Older-format (@1, @2) approvals
 * carry no mac and are not honoured.
 */
export function findApproval(plan: Plan, ledger: ApprovalLedger, now: Date, ttlMs: number, workspaceId: string, started: ReadonlySet<string>): ApprovalCheck {
  const refuse = (code: ErrorCode, message: string, next: string): ApprovalCheck => ({ ok: false, error: new OnboardingError(code, message, { next }) });
  const entry = Object.hasOwn(ledger, plan.sha256) ? ledger[plan.sha256] : undefined;
  const last = entry?.approve;
  if (!last || last.outcome !== 'approved') {
    return refuse(
      ErrorCode.NOT_APPROVED,
      last
        ? `Plan ${plan.planId} is not approved: the last approval request ended "${last.outcome}".`
        : `Plan ${plan.planId} is not approved: no approval trace exists for its SHA-256 (${plan.sha256.slice(0, 12)}…).`,
      'Run onboarding_approve and let the human approve the plan.',
    );
  }
  if (!last.authenticated) { // safety: approval-authenticated
    return refuse(
      ErrorCode.NOT_APPROVED,
      `The approval of plan ${plan.planId} (${last.file}) does not authenticate with this user's trace key: this server did not record it for you (recorded before per-user keys, by another user or key, or forged).`,
      'Run onboarding_approve again.',
    );
  }
  // A confirmed migrate trace without a migration id cannot be matched: count it as used (fail closed).
  const used = entry.migrates.find((m) => m.migrationId === null || started.has(m.migrationId));
  if (used) return refuse(ErrorCode.NOT_APPROVED, `The approval of plan ${plan.planId} was already used by a migration (${used.file}).`, 'Run onboarding_propose and onboarding_approve again.'); // safety: approval-used-once
  if (last.workspace !== workspaceId) { // safety: approval-workspace
    return refuse(
      ErrorCode.NOT_APPROVED,
      last.workspace === null
        ? `The approval of plan ${plan.planId} (${last.file}) was recorded by an older version, without a workspace id or expiry.`
        : `The approval of plan ${plan.planId} (${last.file}) was given in another workspace (its traces were copied here).`,
      'Run onboarding_approve again in this workspace.',
    );
  }
  const sealed = Date.parse(last.expiresAt ?? '');
  const expiresAt = new Date(Math.min(Date.parse(approvalExpiry(last.timestamp, ttlMs)), Number.isNaN(sealed) ? -Infinity : sealed));
  if (!(expiresAt.getTime() > now.getTime())) return refuse(ErrorCode.APPROVAL_EXPIRED, `The approval of plan ${plan.planId} expired at ${expiresAt.toISOString()}.`, 'Run onboarding_approve again.'); // safety: approval-expiry
  return { ok: true, trace: last, expiresAt: expiresAt.toISOString() };
}
