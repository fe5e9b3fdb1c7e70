/**
 * Pure gate logic for approve / migrate / rollback: the messages the human sees and the
 * rule that decides whether a plan is approved. An approval exists only as an `approved`
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
  [{ name: 'approved', title: 'Approve this plan', description: 'Tick to approve the plan shown above, then submit. Leave unticked to refuse.' }],
  [{ name: 'comment', title: 'Comment (optional)', description: 'Anything to record with your decision.', maxLength: NOTE_MAX_CHARS }],
);

export const MIGRATE_SCHEMA: RequestedSchema = gateSchema([
  { name: 'confirmed', title: 'Yes, migrate now', description: 'Tick to write the files listed above.' },
  { name: 'understood_risks', title: 'I understand a backup is made and rollback is available', description: 'Tick to confirm you read the risks above.' },
]);

export const ROLLBACK_SCHEMA: RequestedSchema = gateSchema(
  [{ name: 'confirmed', title: 'Yes, roll back', description: 'Tick to restore the files listed above from the backup.' }],
  [{ name: 'reason', title: 'Reason (optional)', description: 'Why you are rolling back.', maxLength: NOTE_MAX_CHARS }],
);

const fmt = (n: number) => n.toLocaleString('en-US');

function listOps(plan: Plan): string[] {
  const lines: string[] = [];
  const by = (op: string) => plan.operations.filter((o) => o.op === op);
  const modify = by('modify');
  const create = by('create');
  const del = by('delete');
  const before = new Map(plan.sources.map((s) => [s.path, s.size]));
  lines.push(modify.length ? `Will modify: ${modify.map((o) => `${o.path} (${fmt(before.get(o.path) ?? 0)} → ${fmt(o.size)} bytes)`).join(', ')}` : 'Will modify: nothing');
  lines.push(create.length ? `Will create: ${create.length} file(s):` : 'Will create: nothing');
  for (const o of create) {
    const s = plan.sections.find((x) => x.destination === o.path);
    lines.push(`  + ${o.path}${s?.applyTo ? `  applyTo "${s.applyTo}"` : ''} (${fmt(o.size)} bytes)`);
  }
  lines.push(del.length ? `Will delete: ${del.map((o) => o.path).join(', ')}` : 'Will delete: nothing');
  return lines;
}

function problemsLine(plan: Plan): string {
  if (!plan.problems.length) return 'Problems found: none.';
  const shown = plan.problems.slice(0, 8).map((p) => `  - ${p.severity}: ${p.message}${p.lines.length ? ` (line ${p.lines.slice(0, 5).join(', ')})` : ''}`);
  return [`Problems found: ${plan.problems.length}`, ...shown, ...(plan.problems.length > 8 ? [`  … and ${plan.problems.length - 8} more`] : [])].join('\n');
}

export function approveMessage(plan: Plan): string {
  return [
    `Approve migration plan ${plan.planId} (sha256 ${plan.sha256.slice(0, 12)}…)?`,
    ...listOps(plan),
    'Backup before writing: .copilot-state/backups/<migration id>.tar.gz (made by onboarding_migrate, verified before any write)',
    problemsLine(plan),
    `Risk: ${plan.risk}${plan.riskReasons.length ? ` (${plan.riskReasons.join('; ')})` : ''}.`,
    plan.lossless.ok ? 'Every byte of the original is kept (lossless check passed).' : 'WARNING: the lossless check did not pass.',
    'Approving records your decision only; files change when you confirm onboarding_migrate.',
  ].join('\n');
}

export function migrateMessage(plan: Plan, migrationId: string): string {
  return [
    `Migrate now with plan ${plan.planId} (sha256 ${plan.sha256.slice(0, 12)}…), which you approved?`,
    ...listOps(plan),
    `Backup first: .copilot-state/backups/${migrationId}.tar.gz (+ .manifest.json), checked readable before the first write.`,
    problemsLine(plan),
    `Risk: ${plan.risk}${plan.riskReasons.length ? ` (${plan.riskReasons.join('; ')})` : ''}. Rollback: onboarding_rollback or \`copilot-onboarding rollback\`.`,
  ].join('\n');
}

export function rollbackMessage(r: { migrationId: string; restore: string[]; remove: string[]; edited: string[]; archive: string }): string {
  return [
    `Roll back migration ${r.migrationId} from ${r.archive}?`,
    r.restore.length ? `Will restore (byte for byte): ${r.restore.join(', ')}` : 'Will restore: nothing',
    r.remove.length ? `Will remove (created by the migration): ${r.remove.join(', ')}` : 'Will remove: nothing',
    r.edited.length
      ? `WARNING: edited since the migration, these edits will be lost: ${r.edited.join(', ')}`
      : 'No migrated file was edited since the migration.',
    'The backup was checked against its manifest.',
  ].join('\n');
}

export type ApprovalCheck =
  | { ok: true; trace: { file: string; record: ElicitationTrace }; expiresAt: string }
  | { ok: false; error: OnboardingError };

/**
 * Decide from the (verified) trace chain whether `plan` is approved at `now`.
 * `traces` must come from a chain that verified intact; `started` holds the ids of every
 * migration that began writing (a backup, a state record or the journal names it).
 */
export function findApproval(
  plan: Plan,
  traces: ReadonlyArray<{ file: string; record: ElicitationTrace }>,
  now: Date,
  ttlMs: number,
  started: ReadonlySet<string>,
): ApprovalCheck {
  const forPlan = traces.filter((t) => (t.record.subject as { planSha256?: unknown }).planSha256 === plan.sha256);
  const approvals = forPlan.filter((t) => t.record.action === 'approve');
  const last = approvals[approvals.length - 1];
  if (!last || last.record.outcome !== 'approved') {
    return {
      ok: false,
      error: new OnboardingError(
        ErrorCode.NOT_APPROVED,
        last
          ? `Plan ${plan.planId} is not approved: the last approval request ended "${last.record.outcome}".`
          : `Plan ${plan.planId} is not approved: no approval trace exists for its SHA-256 (${plan.sha256.slice(0, 12)}…).`,
        { next: 'Run onboarding_approve and let the human approve the plan.' },
      ),
    };
  }
  const used = forPlan.find((t) => {
    if (t.record.action !== 'migrate' || t.record.outcome !== 'approved' || t.record.seq <= last.record.seq) return false;
    const id = (t.record.subject as { migrationId?: unknown }).migrationId;
    // A confirmed migrate trace without a migration id cannot be matched: count it as used (fail closed).
    return typeof id !== 'string' || started.has(id);
  });
  if (used) {
    return {
      ok: false,
      error: new OnboardingError(ErrorCode.NOT_APPROVED, `The approval of plan ${plan.planId} was already used by a migration (${used.file}).`, {
        next: 'Run onboarding_propose and onboarding_approve again.',
      }),
    };
  }
  const expiresAt = new Date(Date.parse(last.record.timestamp) + ttlMs);
  if (!(expiresAt.getTime() > now.getTime())) {
    return {
      ok: false,
      error: new OnboardingError(ErrorCode.APPROVAL_EXPIRED, `The approval of plan ${plan.planId} expired at ${expiresAt.toISOString()}.`, {
        next: 'Run onboarding_approve again.',
      }),
    };
  }
  return { ok: true, trace: last, expiresAt: expiresAt.toISOString() };
}
