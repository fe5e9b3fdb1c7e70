import { z } from 'zod';
import { MigrationIdSchema, RelPathSchema } from './manifest.js';

export const JOURNAL_FORMAT = 'copilot-onboarding/journal@1';

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/);

/** One planned operation, as the journal remembers it (enough to tell pre-state from post-state without the backup). */
const JournalOpSchema = z
  .object({
    op: z.enum(['create', 'modify', 'delete']),
    path: RelPathSchema,
    /** SHA-256 before (null for create). */
    previousSha256: Hex64.nullable(),
    /** SHA-256 after (null for delete). */
    sha256: Hex64.nullable(),
  })
  .strict();
export type JournalOp = z.infer<typeof JournalOpSchema>;

/**
 * `.copilot-state/journal.json`: present only while a migration or rollback is under way
 * (or was interrupted). Written atomically (temp + fsync + rename + fsync of the folder)
 * before each phase begins, so that after a crash the next start knows what to undo:
 *
 * - `backing-up`   (migrate) the backup is being written; no workspace file was touched yet.
 * - `applying`     (migrate) the verified backup exists; files may be partly written → roll back.
 * - `done`         (migrate) every file is written and verified → only clean-up is left.
 * - `rolling-back` (rollback, or migrate undoing a failed verification) → finish the rollback.
 */
export const JournalSchema = z
  .object({
    format: z.literal(JOURNAL_FORMAT),
    kind: z.enum(['migrate', 'rollback']),
    phase: z.enum(['backing-up', 'applying', 'done', 'rolling-back']),
    migrationId: MigrationIdSchema,
    planId: z.string(),
    pid: z.number().int(),
    startedAt: z.string(),
    updatedAt: z.string(),
    ops: z.array(JournalOpSchema),
    /** Folders the migration creates (parents first). */
    createdDirs: z.array(RelPathSchema),
  })
  .strict();
export type Journal = z.infer<typeof JournalSchema>;
