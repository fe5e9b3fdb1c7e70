import { z } from 'zod';

/** Written by this version; version 1 files (no workspaceId, no chains) are read and upgraded on the next write. */
export const STATE_VERSION = 2;

/** The state machine of a workspace: see docs/flow.md. */
const OnboardingStatusSchema = z.enum(['new', 'analyzed', 'proposed', 'approved', 'migrated', 'rolled-back']);

const ApprovalSchema = z.object({
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

const MigrationRecordSchema = z.object({
  migrationId: z.string(),
  planId: z.string(),
  planSha256: z.string(),
  migratedAt: z.string(),
  backup: z.string(),
  manifest: z.string(),
  written: z.array(z.object({ path: z.string(), op: z.string() })),
  rolledBackAt: z.string().nullable(),
});

/** The last link of a trace chain as the store wrote it: a second copy of the chain head. */
const ChainMarkSchema = z.object({ seq: z.number().int().nonnegative(), sha256: z.string().nullable(), file: z.string().nullable() });
export type ChainMark = z.infer<typeof ChainMarkSchema>;

/** `.copilot-state/onboarding.json` */
export const OnboardingStateSchema = z.object({
  version: z.union([z.literal(1), z.literal(STATE_VERSION)]),
  /** Version 2: the workspace's random id (a copy of `.copilot-state/workspace-id`). */
  workspaceId: z.string().optional(),
  /** Version 2: the last seq/hash/file of each chain, cross-checked against the chain heads. */
  chains: z.object({ elicitation: ChainMarkSchema.optional(), sampling: ChainMarkSchema.optional() }).optional(),
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
