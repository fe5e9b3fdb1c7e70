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

const DecisionFactSchema = z.object({
  seq: z.number().int().positive(),
  file: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  action: z.enum(['approve', 'migrate']),
  planSha256: z.string().regex(/^[0-9a-f]{64}$/),
  outcome: z.string(),
  timestamp: z.string(),
  workspace: z.string().nullable(),
  expiresAt: z.string().nullable(),
  migrationId: z.string().nullable(),
  authenticated: z.boolean(),
});

/** The last link of a verified walk (io/traces.ts ChainLink). */
const ChainLinkSchema = z.object({
  seq: z.number().int().positive(),
  whole: z.string().regex(/^[0-9a-f]{64}$/),
  file: z.string(),
  version: z.number().int().min(1).max(3),
  sealed: z.object({ seq: z.number().int().positive(), ms: z.number() }).nullable(),
  owned: z.boolean(),
});

/**
 * `.copilot-state/trace-checkpoint.json`: where the last verified walk of the elicitation chain
 * ended, and the approve / confirmed migrate facts of every trace up to there (per plan SHA-256),
 * so that a gate reads only the traces appended since. `mac` is HMAC-SHA-256 with the per-user
 * trace key over the canonical JSON of the rest: a checkpoint that does not authenticate, or
 * names another workspace, is ignored (the whole chain is walked).
 */
export const TraceCheckpointSchema = z.object({
  format: z.literal('copilot-onboarding/trace-checkpoint@1'),
  chain: z.literal('elicitation'),
  workspace: z.string(),
  verifiedAt: z.string(),
  link: ChainLinkSchema,
  ledger: z.record(z.string().regex(/^[0-9a-f]{64}$/), z.object({ approve: DecisionFactSchema, migrates: z.array(DecisionFactSchema) })),
  mac: z.string().regex(/^[0-9a-f]{64}$/),
});
