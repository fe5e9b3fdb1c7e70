import { z } from 'zod';

/** `.copilot-state/backups/<migrationId>.manifest.json` */
export const ManifestSchema = z.object({
  format: z.literal('copilot-onboarding/backup-manifest@1'),
  migrationId: z.string(),
  planId: z.string(),
  planSha256: z.string(),
  createdAt: z.string(),
  /** Archive file name relative to the backups folder. */
  archive: z.string(),
  archiveSha256: z.string(),
  /** Files stored in the archive (every path the migration modifies or deletes). */
  files: z.array(
    z.object({ path: z.string(), sha256: z.string(), size: z.number().int().nonnegative(), mode: z.number().int() }),
  ),
  /** Paths the migration creates (absent before), to remove on rollback. */
  creates: z.array(z.string()),
  /** Folders the migration creates (absent before), to remove on rollback if empty. */
  createdDirs: z.array(z.string()),
  /** What each written path should contain after migration (to detect edits since). */
  written: z.array(z.object({ path: z.string(), sha256: z.string() })),
});
export type Manifest = z.infer<typeof ManifestSchema>;
