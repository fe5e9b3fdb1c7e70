import { z } from 'zod';

/**
 * A workspace-relative POSIX path as the backup and journal store it: no leading `/`, no
 * drive letter, no `\`, no NUL, no `.`/`..`/empty segment, never inside the state folder
 * or `.git/`. Rollback deletes and rewrites the paths a manifest lists, so a manifest that
 * names anything else is refused before it is used (the restore path re-checks each one
 * with resolveInside and a RealInsideGuard as well).
 */
export function isSafeRelPath(p: string): boolean {
  if (p.length === 0 || p.length > 4096) return false;
  if (p.includes('\0') || p.includes('\\')) return false;
  if (p.startsWith('/') || /^[a-zA-Z]:/.test(p)) return false;
  const segs = p.split('/');
  if (segs.some((s) => s === '' || s === '.' || s === '..')) return false;
  const first = segs[0];
  if (first === '.copilot-state' || first === '.git') return false;
  return true;
}

export const RelPathSchema = z.string().refine(isSafeRelPath, { message: 'not a safe workspace-relative POSIX path' });

/** Migration ids become file names in `.copilot-state/backups/`: a plain, non-hidden name. */
export const MigrationIdSchema = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, 'letters, digits, ".", "_" and "-" only');

const Hex64 = z.string().regex(/^[0-9a-f]{64}$/);

export const MANIFEST_FORMAT = 'copilot-onboarding/backup-manifest@1';

const ManifestFileSchema = z
  .object({
    path: RelPathSchema,
    sha256: Hex64,
    size: z.number().int().nonnegative(),
    /** Permission bits (`st_mode & 0o7777`), restored on rollback. */
    mode: z.number().int().min(0).max(0o7777),
  })
  .strict();
export type ManifestFile = z.infer<typeof ManifestFileSchema>;

const ManifestWrittenSchema = z
  .object({
    path: RelPathSchema,
    op: z.enum(['create', 'modify', 'delete']),
    /** Bytes the migration writes (0 for delete). */
    size: z.number().int().nonnegative(),
    /** SHA-256 of what the migration writes; null for delete (the path is absent afterwards). */
    sha256: Hex64.nullable(),
  })
  .strict();

/** The manifest without its own hash. */
const ManifestBodySchema = z
  .object({
    format: z.literal(MANIFEST_FORMAT),
    migrationId: MigrationIdSchema,
    planId: z.string().min(1),
    planSha256: Hex64,
    createdAt: z.string(),
    /** Archive file name, relative to the backups folder: `<migrationId>.tar.gz`. */
    archive: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*\.tar\.gz$/),
    archiveSha256: Hex64,
    archiveSize: z.number().int().nonnegative(),
    /** Files stored in the archive (every path the migration modifies or deletes), with their bytes' hash, size and mode before the migration. */
    files: z.array(ManifestFileSchema),
    /** Paths the migration creates (absent before), removed on rollback. */
    creates: z.array(RelPathSchema),
    /** Folders the migration creates (absent before), parents first; removed on rollback when empty. */
    createdDirs: z.array(RelPathSchema),
    /** What each path holds right after the migration (to list the files edited since, before a rollback). */
    written: z.array(ManifestWrittenSchema),
  })
  .strict();
export type ManifestBody = z.infer<typeof ManifestBodySchema>;

/**
 * `.copilot-state/backups/<migrationId>.manifest.json`. `sha256` is the SHA-256 of the canonical
 * JSON of the manifest without `sha256`: a manifest changed by hand or damaged on disk is
 * refused as BACKUP_CORRUPT rather than trusted to say what rollback may delete.
 */
export const ManifestSchema = ManifestBodySchema.extend({ sha256: Hex64 }).strict();
export type Manifest = z.infer<typeof ManifestSchema>;
