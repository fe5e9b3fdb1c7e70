import { z } from 'zod';

export const STATE_VERSION = 1;

/** The state machine of a workspace: see docs/flow.md. */
export const OnboardingStatusSchema = z.enum(['new', 'analyzed', 'proposed', 'approved', 'migrated', 'rolled-back']);
export type OnboardingStatus = z.infer<typeof OnboardingStatusSchema>;

export const ApprovalSchema = z.object({
  planId: z.string(),
  planSha256: z.string(),
  approvedAt: z.string(),
  expiresAt: z.string(),
  /** File name (in elicitation-traces/) and seq of the trace that recorded the approval. */
  trace: z.string(),
  traceSeq: z.number().int(),
  traceSha256: z.string(),
  comment: z.string().nullable(),
});
export type Approval = z.infer<typeof ApprovalSchema>;

export const MigrationRecordSchema = z.object({
  migrationId: z.string(),
  planId: z.string(),
  planSha256: z.string(),
  migratedAt: z.string(),
  backup: z.string(),
  manifest: z.string(),
  written: z.array(z.object({ path: z.string(), op: z.string() })),
  rolledBackAt: z.string().nullable(),
});
export type MigrationRecord = z.infer<typeof MigrationRecordSchema>;

/** `.copilot-state/onboarding.json` */
export const OnboardingStateSchema = z.object({
  version: z.literal(STATE_VERSION),
  status: OnboardingStatusSchema,
  updatedAt: z.string(),
  pattern: z.enum(['clean', 'structured', 'unstructured', 'messy', 'migrated']).nullable(),
  currentPlan: z.object({ planId: z.string(), sha256: z.string(), createdAt: z.string() }).nullable(),
  approval: ApprovalSchema.nullable(),
  migrations: z.array(MigrationRecordSchema),
});
export type OnboardingState = z.infer<typeof OnboardingStateSchema>;

export function emptyState(now: string): OnboardingState {
  return { version: STATE_VERSION, status: 'new', updatedAt: now, pattern: null, currentPlan: null, approval: null, migrations: [] };
}
