/**
 * The tar.gz backup of a migration: `.copilot-state/backups/<id>.tar.gz` holding
 * the current bytes of every path the plan modifies or deletes, and `<id>.manifest.json`
 * recording each file's SHA-256, size and mode, the paths and folders the migration creates,
 * and what it writes.
 *
 * An archive is never extracted to disk by the tar package: it is gunzipped and parsed in
 * memory, every entry is checked against the manifest (regular files only, exactly the
 * listed paths, matching size and SHA-256), and only then are the listed paths written
 * back, each one resolved through the workspace path guard. A hostile or damaged archive
 * can therefore make a restore refuse, never write outside the listed files.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type * as Tar from 'tar';
import { canonicalJson, sha256Hex } from '../core/canonical.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import {
  MANIFEST_FORMAT,
  ManifestSchema,
  MigrationIdSchema,
  isSafeRelPath,
  type Manifest,
  type ManifestBody,
  type ManifestFile,
} from '../schemas/manifest.js';
import type { Plan } from '../schemas/plan.js';
import { sidecarPath } from './journal.js';
import { atomicWriteFile, fsyncDir } from './durable.js';
import { assertStateWrite, forEachLimit, IO_CONCURRENCY, mapLimit, RealInsideGuard, resolveInside, unlessMissing } from './workspace.js';
import { backupRelPaths, backupsDir, manifestFile, rel } from './layout.js';

const gunzip = promisify(zlib.gunzip);
const gzip = promisify(zlib.gzip);

export { backupRelPaths, backupsDir };

/** `tar` is loaded on the first backup or restore, not when the server starts. */
let tarModule: Promise<typeof Tar> | undefined;
function loadTar(): Promise<typeof Tar> {
  tarModule ??= import('tar');
  return tarModule;
}

/** SHA-256 of the canonical JSON of the manifest without its `sha256` member. */
export function manifestHash(body: ManifestBody | Manifest): string {
  const { sha256: _drop, ...rest } = body as Manifest;
  return sha256Hex(canonicalJson(rest));
}

type Failed = { ok: false; reason: string; code: typeof ErrorCode.BACKUP_CORRUPT | typeof ErrorCode.BACKUP_MISSING };

const CORRUPT_NEXT = 'Restore .copilot-state/backups/ from a copy, or restore the instruction files from version control.';

function assertMigrationId(migrationId: string): void {
  if (!MigrationIdSchema.safeParse(migrationId).success) {
    throw new OnboardingError(ErrorCode.INVALID_INPUT, `"${migrationId}" is not a valid migration id.`, {
      next: 'Use the migrationId returned by onboarding_migrate (see copilot-onboarding status).',
    });
  }
}

/** Regular-file bytes of a workspace path, refusing symlinks and anything whose real location is outside. */
async function readRegular(root: string, rel: string, guard: RealInsideGuard): Promise<{ bytes: Buffer; mode: number; mtime: Date }> {
  const abs = resolveInside(root, rel);
  await guard.check(abs);
  const st = await fsp.lstat(abs);
  if (!st.isFile()) {
    throw new OnboardingError(ErrorCode.SOURCE_REFUSED, `${rel} is not a regular file (symlink, folder or device), so it is not backed up or changed. Nothing was changed.`, {
      next: 'Replace it with a regular file and run onboarding_propose again.',
    });
  }
  return { bytes: await fsp.readFile(abs), mode: st.mode & 0o7777, mtime: st.mtime };
}

/** Folders (workspace-relative, parents first) that do not exist yet and must be made to create `rels`. */
async function missingDirs(root: string, rels: string[], guard: RealInsideGuard): Promise<string[]> {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const rel of rels) {
    const segs = rel.split('/');
    for (let i = 1; i < segs.length; i++) {
      const dir = segs.slice(0, i).join('/');
      if (seen.has(dir)) continue;
      seen.add(dir);
      const abs = resolveInside(root, dir);
      try {
        const st = await fsp.lstat(abs);
        if (st.isSymbolicLink()) await guard.check(abs);
        if (!(await fsp.stat(abs)).isDirectory()) {
          throw new OnboardingError(ErrorCode.PLAN_STALE, `${dir} exists but is not a folder, so ${rel} cannot be created. Nothing was changed.`, {
            next: 'Move it away and run onboarding_propose again.',
          });
        }
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        out.push(dir);
      }
    }
  }
  return out;
}

/**
 * Back up every path the plan modifies or deletes and write the manifest; then read the
 * archive back and check it against the manifest before returning. Nothing in the
 * workspace is written. Refuses (PLAN_STALE) when a file no longer has the hash the plan
 * recorded or a path to create already exists.
 */
export async function createBackup(
  root: string,
  opts: { migrationId: string; plan: Plan; crashAt?: (point: string) => void; now?: Date; guard?: RealInsideGuard },
): Promise<Manifest> {
  const { migrationId, plan } = opts;
  const crash = opts.crashAt ?? (() => undefined);
  const guard = opts.guard ?? new RealInsideGuard(root);
  assertMigrationId(migrationId);
  for (const op of plan.operations) {
    if (!isSafeRelPath(op.path)) {
      throw new OnboardingError(ErrorCode.PATH_OUTSIDE_WORKSPACE, `The plan names a path that is not allowed: ${JSON.stringify(op.path)}. Nothing was changed.`);
    }
  }
  // Every file is read once (reads overlapped): its bytes are hashed for the manifest and are
  // what goes into the archive, so the two cannot disagree.
  const read = await mapLimit(plan.operations, IO_CONCURRENCY, async (op) => {
    if (op.op === 'create') {
      const abs = resolveInside(root, op.path);
      // (a path under a folder that does not exist does not exist either: no lstat)
      const exists = !(await guard.check(abs)) ? false : await fsp.lstat(abs).then(
        () => true,
        (e: NodeJS.ErrnoException) => {
          if (e.code === 'ENOENT') return false;
          throw e;
        },
      );
      if (exists) {
        throw new OnboardingError(ErrorCode.PLAN_STALE, `${op.path} already exists, but the plan would create it: stale plan: run onboarding_propose again. Nothing was changed.`, {
          next: 'Run onboarding_propose again, then approve the new plan.',
        });
      }
      return null;
    }
    const { bytes, mode, mtime } = await readRegular(root, op.path, guard);
    const sha256 = sha256Hex(bytes);
    if (op.previousSha256 !== null && op.previousSha256 !== sha256) {
      throw new OnboardingError(ErrorCode.PLAN_STALE, `${op.path} changed since the plan was made: stale plan: run onboarding_propose again. Nothing was changed.`, {
        next: 'Run onboarding_propose again, then approve the new plan.',
      });
    }
    return { file: { path: op.path, sha256, size: bytes.length, mode } satisfies ManifestFile, bytes, mtime };
  });
  const entries = read.filter((r) => r !== null);
  const files = entries.map((r) => r.file);
  const creates = plan.operations.filter((_, i) => !read[i]).map((op) => op.path);
  const createdDirs = await missingDirs(root, creates, guard);

  const dir = backupsDir(root);
  const archiveName = `${migrationId}.tar.gz`;
  const archiveAbs = path.join(dir, archiveName);
  // A migration that only creates files still gets an archive (an empty one), so every migration has the same shape.
  // The tar stream is checked (structure, every entry against the manifest's files) while it is gzipped.
  const raw = tarOf(await loadTar(), entries);
  const [archiveBytes, tarCheck] = await Promise.all([gzip(raw), checkTar(raw, { files }).catch((e: unknown) => ({ ok: false as const, reason: (e as Error).message }))]);
  const body: ManifestBody = {
    format: MANIFEST_FORMAT,
    migrationId,
    planId: plan.planId,
    planSha256: plan.sha256,
    createdAt: (opts.now ?? new Date()).toISOString(),
    archive: archiveName,
    archiveSha256: sha256Hex(archiveBytes),
    archiveSize: archiveBytes.length,
    files,
    creates,
    createdDirs,
    written: plan.operations.map((op) => ({
      path: op.path,
      op: op.op,
      size: op.op === 'delete' ? 0 : op.size,
      sha256: op.op === 'delete' ? null : op.sha256,
    })),
  };
  const manifest = ManifestSchema.parse({ ...body, sha256: manifestHash(body) });
  // The archive bytes are gunzipped back (and must give the checked tar stream) while they are
  // written and synced; the read-back below then proves that the file on disk is exactly these
  // bytes (its size and sha256, as every later load checks). Together: the same checks as
  // loadBackup's, over the file on disk.
  const checking: Promise<{ ok: true } | { ok: false; reason: string }> = !tarCheck.ok
    ? Promise.resolve({ ok: false, reason: tarCheck.reason })
    : gunzip(archiveBytes).then(
        (back) => (back.equals(raw) ? { ok: true } : { ok: false, reason: 'the archive does not gunzip to the tar stream it was made from' }),
        (e: unknown) => ({ ok: false, reason: `the archive is not a complete gzip stream (${(e as Error).message})` }),
      );

  // Security: the state folder and backups/ are checked again right before the first write into
  // them (the folder is made only now): either may have been swapped for a symlink while a form was open.
  await assertStateWrite(root, archiveAbs); // safety: backup-archive-confined
  await fsp.mkdir(dir, { recursive: true });
  await atomicWriteFile(archiveAbs, archiveBytes, { tmp: path.join(dir, `.${archiveName}.tmp`) });
  await fsyncDir(dir);
  crash('backup-archive-written');

  await assertStateWrite(root, manifestFile(root, migrationId)); // safety: backup-manifest-confined
  await atomicWriteFile(manifestFile(root, migrationId), `${JSON.stringify(manifest, null, 2)}\n`);
  await fsyncDir(dir);
  crash('backup-manifest-written');

  // The backup must be readable before any file is written: read the archive back from disk.
  const onDisk = await fsp.readFile(archiveAbs);
  const check = await checking;
  const problem = !check.ok
    ? check.reason
    : onDisk.length !== manifest.archiveSize || sha256Hex(onDisk) !== manifest.archiveSha256
      ? `the archive ${manifest.archive} read back from disk does not match the sha256 recorded in its manifest`
      : null;
  if (problem !== null) {
    throw new OnboardingError(
      ErrorCode.BACKUP_CORRUPT,
      `The backup just written does not read back as the files it was made from (${problem}): a file changed while it was being backed up, or the disk is failing. Nothing was changed.`,
      { next: 'Check that nobody is editing the instruction files and that the disk has space, then run onboarding_migrate again.' },
    );
  }
  crash('backup-verified');
  return manifest;
}

/**
 * The tar stream of `entries`, built in memory from the bytes already read, with the package
 * `tar`'s own header and PAX encoders and the options `tar.c({portable: true})` uses: no
 * uid/gid/user names, modes as tar's portable mode fix leaves them (the manifest keeps the
 * real ones), a PAX header only when a field does not fit ustar, ended by two zero blocks.
 */
function tarOf(tar: typeof Tar, entries: Array<{ file: ManifestFile; bytes: Buffer; mtime: Date }>): Buffer {
  const parts: Buffer[] = [];
  for (const { file, bytes, mtime } of entries) {
    const header = new tar.Header({ path: file.path, mode: (file.mode | 0o600) & ~0o22, size: bytes.length, mtime, type: 'File' });
    header.encode();
    if (header.needPax) parts.push(new tar.Pax({ path: file.path, mtime, size: bytes.length }).encode());
    parts.push(header.block!, bytes);
    const pad = (512 - (bytes.length % 512)) % 512;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** Read and validate `.copilot-state/backups/<migrationId>.manifest.json`. */
export async function readManifest(root: string, migrationId: string): Promise<Manifest> {
  assertMigrationId(migrationId);
  const rel = backupRelPaths(migrationId).manifest;
  const raw = await unlessMissing(() => fsp.readFile(manifestFile(root, migrationId), 'utf8'));
  if (raw === null) {
    throw new OnboardingError(ErrorCode.BACKUP_MISSING, `The backup manifest of migration ${migrationId} (${rel}) is missing, so it cannot be rolled back from its backup. No file was touched.`, {
      next: `${CORRUPT_NEXT} Check the id with \`copilot-onboarding status\`.`,
    });
  }
  const corrupt = (why: string) =>
    new OnboardingError(ErrorCode.BACKUP_CORRUPT, `The backup manifest ${rel} is corrupt (${why}), so the backup cannot be trusted. No file was touched.`, {
      next: CORRUPT_NEXT,
    });
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw corrupt('not valid JSON');
  }
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) throw corrupt(parsed.error.issues[0] ? `${parsed.error.issues[0].path.join('.')}: ${parsed.error.issues[0].message}` : 'invalid');
  if (parsed.data.migrationId !== migrationId) throw corrupt(`it names migration ${parsed.data.migrationId}`);
  if (manifestHash(parsed.data) !== parsed.data.sha256) throw corrupt('its content does not match its own sha256');
  return parsed.data;
}

/** Check the manifest's own integrity, then the archive against it. Never writes anything. */
export async function verifyBackup(root: string, manifest: Manifest): Promise<{ ok: true } | Failed> {
  const loaded = await loadBackup(root, manifest);
  return loaded.ok ? { ok: true } : { ok: false, reason: loaded.reason, code: loaded.code };
}

/** The verified contents of a backup, by path (memory only). */
export async function loadBackup(
  root: string,
  manifest: Manifest,
): Promise<{ ok: true; contents: Map<string, Buffer> } | Failed> {
  const parsed = ManifestSchema.safeParse(manifest);
  if (!parsed.success) return { ok: false, reason: 'the manifest does not match its schema', code: ErrorCode.BACKUP_CORRUPT };
  if (manifestHash(parsed.data) !== parsed.data.sha256) return { ok: false, reason: 'the manifest does not match its own sha256', code: ErrorCode.BACKUP_CORRUPT };
  if (parsed.data.archive !== `${parsed.data.migrationId}.tar.gz`) return { ok: false, reason: 'the manifest names another archive', code: ErrorCode.BACKUP_CORRUPT };
  let bytes: Buffer;
  try {
    bytes = await fsp.readFile(path.join(backupsDir(root), parsed.data.archive));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return { ok: false, reason: `the archive ${rel('backups', parsed.data.archive)} is missing`, code: ErrorCode.BACKUP_MISSING };
    }
    return { ok: false, reason: `the archive cannot be read (${(e as Error).message})`, code: ErrorCode.BACKUP_CORRUPT };
  }
  const r = await checkArchive(bytes, parsed.data);
  return r.ok ? r : { ...r, code: ErrorCode.BACKUP_CORRUPT };
}

interface RawEntry {
  type: string;
  path: string;
  body: Buffer;
}

/** Parse a tar stream held in memory; every warning or error is fatal. */
async function parseTar(raw: Buffer): Promise<{ ok: true; entries: RawEntry[] } | { ok: false; reason: string }> {
  const tar = await loadTar();
  return new Promise((resolve) => {
    const entries: RawEntry[] = [];
    const problems: string[] = [];
    let pending = 0;
    let ended = false;
    const finish = () => {
      if (!ended || pending > 0) return;
      resolve(problems.length ? { ok: false, reason: problems[0]! } : { ok: true, entries });
    };
    const parser = new tar.Parser({
      strict: true,
      onwarn: (code: string, message: string) => problems.push(`${code}: ${message}`),
      onReadEntry: (entry: Tar.ReadEntry) => {
        pending++;
        const chunks: Buffer[] = [];
        entry.on('data', (c: Buffer) => chunks.push(c));
        entry.on('end', () => {
          entries.push({ type: entry.type, path: entry.path, body: Buffer.concat(chunks) });
          pending--;
          finish();
        });
      },
    });
    parser.on('error', (e: Error) => problems.push(e.message));
    parser.on('end', () => {
      ended = true;
      finish();
    });
    try {
      parser.end(raw);
    } catch (e) {
      problems.push((e as Error).message);
      resolve({ ok: false, reason: problems[0]! });
    }
  });
}

/** An entry path is acceptable only as a safe relative path (the manifest check then demands an exact match). */
function entryPathProblem(p: string): string | null {
  if (p.startsWith('/') || /^[a-zA-Z]:/.test(p)) return `an absolute path (${JSON.stringify(p)})`;
  if (p.split(/[\\/]/).includes('..')) return `a path with ".." (${JSON.stringify(p)})`;
  return null;
}

/** The archive bytes against the manifest: hash, gzip, tar structure, then every entry. */
async function checkArchive(bytes: Buffer, manifest: Manifest): Promise<{ ok: true; contents: Map<string, Buffer> } | { ok: false; reason: string }> {
  if (bytes.length !== manifest.archiveSize || sha256Hex(bytes) !== manifest.archiveSha256) {
    return { ok: false, reason: `the archive ${manifest.archive} does not match the sha256 recorded in its manifest (changed or damaged)` };
  }
  let raw: Buffer;
  try {
    raw = await gunzip(bytes);
  } catch (e) {
    return { ok: false, reason: `the archive is not a complete gzip stream (${(e as Error).message})` };
  }
  return checkTar(raw, manifest);
}

/** A tar stream (gunzipped) against the manifest's file list: structure, then every entry. */
async function checkTar(raw: Buffer, manifest: Pick<Manifest, 'files'>): Promise<{ ok: true; contents: Map<string, Buffer> } | { ok: false; reason: string }> {
  // Two zero blocks and nothing else: the empty archive of a migration that only creates files.
  const parsed = raw.length >= 1024 && raw.length % 512 === 0 && raw.every((b) => b === 0) ? ({ ok: true, entries: [] } as const) : await parseTar(raw);
  if (!parsed.ok) return { ok: false, reason: `the archive is not a valid tar (${parsed.reason})` };
  const expected = new Map(manifest.files.map((f) => [f.path, f]));
  const contents = new Map<string, Buffer>();
  for (const e of parsed.entries) {
    const bad = entryPathProblem(e.path);
    if (bad) return { ok: false, reason: `the archive holds an entry with ${bad}` };
    if (e.type !== 'File' && e.type !== 'OldFile') return { ok: false, reason: `the archive entry ${e.path} is a ${e.type}, not a regular file` };
    if (!isSafeRelPath(e.path)) return { ok: false, reason: `the archive holds an entry with an unsafe path (${JSON.stringify(e.path)})` };
    const f = expected.get(e.path);
    if (!f) return { ok: false, reason: `the archive holds ${e.path}, which its manifest does not list` };
    if (contents.has(e.path)) return { ok: false, reason: `the archive holds ${e.path} twice` };
    if (e.body.length !== f.size || sha256Hex(e.body) !== f.sha256) {
      return { ok: false, reason: `${e.path} in the archive does not match the size and sha256 in the manifest` };
    }
    contents.set(e.path, e.body);
  }
  for (const f of manifest.files) if (!contents.has(f.path)) return { ok: false, reason: `the archive lacks ${f.path}` };
  return { ok: true, contents };
}

export interface RestoreResult {
  /** Paths rewritten from the backup. */
  restored: string[];
  /** Paths that already held the backed-up bytes and mode. */
  unchanged: string[];
}

/**
 * Verify the backup, then write every backed-up file back byte for byte with its mode
 * (temp file + fsync + rename). Only the manifest's paths are written, each resolved inside
 * the workspace; if any target resolves outside (a symlinked folder), nothing is written.
 */
export async function restoreFromBackup(
  root: string,
  manifest: Manifest,
  opts: { onFile?: (rel: string, index: number) => void } = {},
): Promise<RestoreResult> {
  return restoreContents(root, manifest, await loadVerifiedBackup(root, manifest), opts);
}

/** The contents of a backup that passed its check; refuses (BACKUP_CORRUPT or BACKUP_MISSING) one that did not. */
export async function loadVerifiedBackup(root: string, manifest: Manifest): Promise<Map<string, Buffer>> {
  const loaded = await loadBackup(root, manifest);
  if (loaded.ok) return loaded.contents;
  throw new OnboardingError(loaded.code, `The backup of migration ${manifest.migrationId} failed its check: ${loaded.reason}. No file was touched.`, { next: CORRUPT_NEXT });
}

/** Write verified backup contents back (see restoreFromBackup). */
export async function restoreContents(
  root: string,
  manifest: Manifest,
  contents: Map<string, Buffer>,
  opts: { onFile?: (rel: string, index: number) => void } = {},
): Promise<RestoreResult> {
  // Check every target before writing any.
  // (checks overlapped; the first refusal in manifest order is the one reported).
  const guard = new RealInsideGuard(root);
  const checked = await mapLimit(manifest.files, IO_CONCURRENCY, async (f) => {
    const abs = resolveInside(root, f.path);
    try {
      await guard.check(abs);
    } catch (e) {
      return { error: e };
    }
    const st = await fsp.lstat(abs).catch(() => null);
    return { abs, st };
  });
  const targets: Array<{ f: ManifestFile; abs: string; data: Buffer }> = [];
  manifest.files.forEach((f, k) => {
    const c = checked[k]!;
    if ('error' in c) throw c.error;
    if (c.st?.isDirectory()) {
      throw new OnboardingError(ErrorCode.INTERNAL, `${f.path} is now a folder, so the backed-up file cannot be put back. No file was touched.`, {
        next: 'Move the folder away and run the rollback again.',
      });
    }
    const data = contents.get(f.path);
    if (!data) throw new OnboardingError(ErrorCode.BACKUP_CORRUPT, `The backup lacks ${f.path}. No file was touched.`, { next: CORRUPT_NEXT });
    targets.push({ f, abs: c.abs, data });
  });
  const same = new Array<boolean>(targets.length).fill(false);
  const dirs = new Set<string>();
  await forEachLimit(
    targets,
    IO_CONCURRENCY,
    async ({ f, abs, data }, k) => {
      const st = await fsp.lstat(abs).catch(() => null);
      if (st?.isFile() && (st.mode & 0o7777) === f.mode && st.size === f.size && sha256Hex(await fsp.readFile(abs)) === f.sha256) {
        same[k] = true;
        return;
      }
      await atomicWriteFile(abs, data, { mode: f.mode, tmp: sidecarPath(root, f.path, 'restore', manifest.migrationId) });
      dirs.add(path.dirname(abs));
    },
    (k) => opts.onFile?.(targets[k]!.f.path, k + 1),
  );
  await Promise.all([...dirs].map((d) => fsyncDir(d)));
  return { restored: targets.filter((_, k) => !same[k]).map((t) => t.f.path), unchanged: targets.filter((_, k) => same[k]).map((t) => t.f.path) };
}

/** The ids of the migrations with a manifest in backups/, oldest first (ids start with their time). */
export async function manifestIds(root: string): Promise<string[]> {
  const names = await fsp.readdir(backupsDir(root)).catch(() => [] as string[]);
  return names.filter((f) => f.endsWith('.manifest.json')).map((f) => f.slice(0, -'.manifest.json'.length)).sort();
}
