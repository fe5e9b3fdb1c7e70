/**
 * The tar.gz backup on real temp workspaces: round trip (bytes and modes), and every way a
 * backup can be missing, damaged or hostile — each refused before anything is written.
 */
import { existsSync, mkdirSync, mkdtempSync, promises as fsp, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import * as tar from 'tar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../server/src/core/canonical.js';
import { OnboardingError } from '../../server/src/core/errors.js';
import { backupRelPaths, createBackup, manifestHash, readManifest, restoreFromBackup, verifyBackup } from '../../server/src/io/backup.js';
import type { Manifest } from '../../server/src/schemas/manifest.js';
import type { Plan } from '../../server/src/schemas/plan.js';
import { planFromOps, sha, treeDigest as tree, writeFileIn as write, type OpSpec } from '../helpers/fixtures.js';

const tempWorkspace = (prefix: string) => mkdtempSync(path.join(os.tmpdir(), prefix));
const removeWorkspace = (dir: string) => rmSync(dir, { recursive: true, force: true });

/** A Plan object built the way the planner builds one (hashes over the bytes now on disk). */
async function makePlan(root: string, specs: OpSpec[]): Promise<Plan> {
  const before = new Map<string, Uint8Array>();
  for (const s of specs) if (s.op !== 'create') before.set(s.path, await fsp.readFile(path.join(root, s.path)));
  return planFromOps(before, specs);
}

const MONO = '.github/copilot-instructions.md';
const MONO_BYTES = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# Instructions\r\n\r\n## TypeScript\r\n- strict 严格\r\n', 'utf8')]);

let outer: string;
let root: string;
beforeEach(async () => {
  // The workspace is a child folder, so "../evil" from it lands in a folder this test owns and can inspect.
  outer = tempWorkspace('co-backup-');
  root = path.join(outer, 'ws');
  mkdirSync(root);
  await write(root, MONO, MONO_BYTES, 0o640);
  await write(root, '.github/old.md', 'old file\n', 0o600);
  await write(root, 'src/index.ts', 'export {};\n');
});
afterEach(() => removeWorkspace(outer));

async function standardPlan(): Promise<Plan> {
  return makePlan(root, [
    { op: 'modify', path: MONO, content: '# Instructions\n' },
    { op: 'delete', path: '.github/old.md' },
    { op: 'create', path: '.github/instructions/ts.instructions.md', content: '---\napplyTo: "**/*.ts"\n---\n## TypeScript\n' },
  ]);
}

async function backedUp(): Promise<{ plan: Plan; manifest: Manifest }> {
  const plan = await standardPlan();
  const manifest = await createBackup(root, { migrationId: 'm1', plan });
  return { plan, manifest };
}

const archiveAbs = () => path.join(root, backupRelPaths('m1').archive);
const manifestAbs = () => path.join(root, backupRelPaths('m1').manifest);

/** Rewrite the manifest on disk (recomputing its own hash unless told not to). */
async function rewriteManifest(m: Manifest, change: (m: Manifest) => void, opts: { rehash?: boolean } = {}): Promise<Manifest> {
  const next = structuredClone(m);
  change(next);
  if (opts.rehash !== false) next.sha256 = manifestHash(next);
  await fsp.writeFile(manifestAbs(), JSON.stringify(next, null, 2));
  return next;
}

/** A manifest that matches a replaced archive byte for byte: only the entries can give it away. */
async function replaceArchive(m: Manifest, bytes: Buffer): Promise<Manifest> {
  await fsp.writeFile(archiveAbs(), bytes);
  return rewriteManifest(m, (x) => {
    x.archiveSha256 = sha(bytes);
    x.archiveSize = bytes.length;
  });
}

function tarEntry(p: string, type: string, body: Buffer = Buffer.alloc(0), linkpath?: string): Buffer {
  const h = new tar.Header({ path: p, type: type as never, size: type === 'File' ? body.length : 0, mode: 0o644, mtime: new Date(0), ...(linkpath ? { linkpath } : {}) });
  h.encode();
  const data = type === 'File' ? body : Buffer.alloc(0);
  return Buffer.concat([h.block!, data, Buffer.alloc((512 - (data.length % 512)) % 512)]);
}
const tgz = (...entries: Buffer[]) => zlib.gzipSync(Buffer.concat([...entries, Buffer.alloc(1024)]));

describe('createBackup', () => {
  it('archives every modified and deleted file with hash, size and mode, and lists what will be created', async () => {
    const { plan, manifest } = await backedUp();
    expect(manifest.migrationId).toBe('m1');
    expect(manifest.planSha256).toBe(plan.sha256);
    expect(manifest.files).toEqual([
      { path: MONO, sha256: sha(MONO_BYTES), size: MONO_BYTES.length, mode: 0o640 },
      { path: '.github/old.md', sha256: sha('old file\n'), size: 9, mode: 0o600 },
    ]);
    expect(manifest.creates).toEqual(['.github/instructions/ts.instructions.md']);
    expect(manifest.createdDirs).toEqual(['.github/instructions']);
    expect(manifest.written.map((w) => [w.op, w.path, w.sha256])).toEqual(plan.operations.map((o) => [o.op, o.path, o.sha256]));
    expect(manifest.archiveSha256).toBe(sha(await fsp.readFile(archiveAbs())));
    expect(await readManifest(root, 'm1')).toEqual(manifest);
    expect(await verifyBackup(root, manifest)).toEqual({ ok: true });
    // The archive is an ordinary tar.gz any tool can list.
    const listed: string[] = [];
    await tar.t({ file: archiveAbs(), onReadEntry: (e) => listed.push(e.path) });
    expect(listed.sort()).toEqual(['.github/copilot-instructions.md', '.github/old.md']);
  });

  it('writes nothing in the workspace', async () => {
    const before = await tree(root);
    await backedUp();
    expect(await tree(root)).toEqual(before);
  });

  it('notes only the folders that do not exist yet, parents first', async () => {
    const plan = await makePlan(root, [
      { op: 'create', path: 'docs/a/b/x.md', content: 'x' },
      { op: 'create', path: 'docs/a/y.md', content: 'y' },
      { op: 'create', path: 'src/new.ts', content: 'n' },
    ]);
    const m = await createBackup(root, { migrationId: 'm2', plan });
    expect(m.createdDirs).toEqual(['docs', 'docs/a', 'docs/a/b']);
    expect(m.files).toEqual([]);
    expect(await verifyBackup(root, m)).toEqual({ ok: true });
  });

  it('refuses a stale plan, an existing create target and a symlinked target', async () => {
    const plan = await standardPlan();
    await write(root, MONO, 'changed\n');
    await expect(createBackup(root, { migrationId: 'm1', plan })).rejects.toMatchObject({ code: 'PLAN_STALE' });
    await write(root, MONO, MONO_BYTES, 0o640);
    await write(root, '.github/instructions/ts.instructions.md', 'mine');
    await expect(createBackup(root, { migrationId: 'm1', plan })).rejects.toMatchObject({ code: 'PLAN_STALE' });
    await fsp.rm(path.join(root, '.github/instructions'), { recursive: true });
    await fsp.writeFile(path.join(outer, 'secret'), 'outside');
    await fsp.rm(path.join(root, '.github/old.md'));
    await fsp.symlink(path.join(outer, 'secret'), path.join(root, '.github/old.md'));
    await expect(createBackup(root, { migrationId: 'm1', plan })).rejects.toBeInstanceOf(OnboardingError);
  });

  it('round-trips long and non-ASCII paths (pax headers) and empty files', async () => {
    const long = `.github/${'very-long-folder-name/'.repeat(8)}规则 🙂.md`;
    await write(root, long, Buffer.from([0xff, 0xfe, 0x00, 0x41]), 0o755);
    await write(root, '.github/empty.md', '');
    const plan = await makePlan(root, [
      { op: 'delete', path: long },
      { op: 'modify', path: '.github/empty.md', content: 'now with content' },
    ]);
    const before = await tree(root);
    const m = await createBackup(root, { migrationId: 'm3', plan });
    expect(m.files.map((f) => f.path)).toEqual([long, '.github/empty.md']);
    await fsp.rm(path.join(root, long));
    await fsp.writeFile(path.join(root, '.github/empty.md'), 'x');
    await restoreFromBackup(root, m);
    expect(await tree(root)).toEqual(before);
  });

  it('refuses an unsafe migration id', async () => {
    const plan = await standardPlan();
    await expect(createBackup(root, { migrationId: '../x', plan })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

/**
 * Security: createBackup re-checks the state folder right before each of its two writes (the
 * archive, the manifest), so `.copilot-state` or `.copilot-state/backups` swapped for a symlink
 * while a form was open, or between the two writes, gets nothing written outside. Each case is
 * the swap only one of the two checks can see.
 */
describe('createBackup writes nothing outside the state folder', () => {
  const STATE = '.copilot-state';
  const stolen = () => path.join(outer, 'stolen');
  const listing = (dir: string) => (existsSync(dir) ? readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort() : null);

  it('.copilot-state/backups a symlink out before the archive is written: refused, no archive outside', async () => {
    mkdirSync(path.join(root, STATE));
    mkdirSync(stolen());
    symlinkSync(stolen(), path.join(root, STATE, 'backups'));
    await expect(createBackup(root, { migrationId: 'm1', plan: await standardPlan() })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    expect(listing(stolen())).toEqual([]);
  });

  it('.copilot-state itself a symlink out before the archive is written: refused, no backups folder made outside', async () => {
    mkdirSync(stolen());
    symlinkSync(stolen(), path.join(root, STATE));
    await expect(createBackup(root, { migrationId: 'm1', plan: await standardPlan() })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    expect(listing(stolen())).toEqual([]);
  });

  it('.copilot-state/backups swapped for a symlink out between the archive and the manifest: refused, no manifest outside', async () => {
    const backups = path.join(root, STATE, 'backups');
    const swap = (point: string) => {
      if (point !== 'backup-archive-written') return;
      renameSync(backups, stolen());
      symlinkSync(stolen(), backups);
    };
    await expect(createBackup(root, { migrationId: 'm1', plan: await standardPlan(), crashAt: swap })).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    // Only what was written before the swap (moved out by the swap itself): the archive, no manifest.
    expect(listing(stolen())).toEqual(['m1.tar.gz']);
  });
});

describe('restoreFromBackup', () => {
  it('puts every backed-up file back byte for byte, with its mode', async () => {
    const { manifest } = await backedUp();
    const before = await tree(root);
    await write(root, MONO, 'overwritten', 0o644);
    await fsp.rm(path.join(root, '.github/old.md'));
    const res = await restoreFromBackup(root, manifest);
    expect(res.restored.sort()).toEqual([MONO, '.github/old.md'].sort());
    expect(await tree(root)).toEqual(before);
    // Idempotent: a second restore has nothing to do.
    expect(await restoreFromBackup(root, manifest)).toEqual({ restored: [], unchanged: [MONO, '.github/old.md'] });
  });

  it('refuses a target whose real path is outside the workspace, writing nothing', async () => {
    const { manifest } = await backedUp();
    const elsewhere = path.join(outer, 'elsewhere');
    await fsp.mkdir(elsewhere);
    await fsp.rename(path.join(root, '.github'), path.join(outer, 'gh-moved'));
    await fsp.symlink(elsewhere, path.join(root, '.github'));
    await expect(restoreFromBackup(root, manifest)).rejects.toMatchObject({ code: 'PATH_OUTSIDE_WORKSPACE' });
    expect(await fsp.readdir(elsewhere)).toEqual([]);
  });
});

describe('a backup that cannot be trusted is refused before anything is written', () => {
  async function expectRefused(manifest: Manifest, reason: RegExp, code = 'BACKUP_CORRUPT'): Promise<void> {
    const before = await tree(root);
    const outerBefore = (await fsp.readdir(outer)).sort();
    // Make the workspace differ from the backup, so a restore would have something to write.
    await write(root, MONO, 'edited after the migration');
    const edited = await tree(root);
    const v = await verifyBackup(root, manifest);
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.reason).toMatch(reason);
      expect(v.code).toBe(code);
    }
    await expect(restoreFromBackup(root, manifest)).rejects.toMatchObject({ code });
    expect(await tree(root)).toEqual(edited);
    expect((await fsp.readdir(outer)).sort()).toEqual(outerBefore);
    expect(existsSync(path.join(outer, 'evil'))).toBe(false);
    void before;
  }

  it('missing archive', async () => {
    const { manifest } = await backedUp();
    await fsp.rm(archiveAbs());
    await expectRefused(manifest, /missing/, 'BACKUP_MISSING');
  });

  it('missing manifest', async () => {
    await backedUp();
    await fsp.rm(manifestAbs());
    await expect(readManifest(root, 'm1')).rejects.toMatchObject({ code: 'BACKUP_MISSING' });
  });

  it('truncated archive (hash recorded in the manifest no longer matches)', async () => {
    const { manifest } = await backedUp();
    const bytes = await fsp.readFile(archiveAbs());
    await fsp.writeFile(archiveAbs(), bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expectRefused(manifest, /sha256/);
  });

  it('truncated gzip even when the manifest was rewritten to match it', async () => {
    const { manifest } = await backedUp();
    const bytes = await fsp.readFile(archiveAbs());
    const m = await replaceArchive(manifest, bytes.subarray(0, bytes.length - 12));
    await expectRefused(m, /gzip/);
  });

  it('garbage instead of gzip', async () => {
    const { manifest } = await backedUp();
    const m = await replaceArchive(manifest, Buffer.from('not a tarball at all'));
    await expectRefused(m, /gzip/);
  });

  it('a gzip holding a truncated tar', async () => {
    const { manifest } = await backedUp();
    const raw = zlib.gunzipSync(await fsp.readFile(archiveAbs()));
    const m = await replaceArchive(manifest, zlib.gzipSync(raw.subarray(0, 700)));
    await expectRefused(m, /tar/);
  });

  it('a file hash changed in the manifest (manifest re-sealed)', async () => {
    const { manifest } = await backedUp();
    const m = await rewriteManifest(manifest, (x) => {
      x.files[0]!.sha256 = 'a'.repeat(64);
    });
    await expectRefused(m, /does not match the size and sha256/);
  });

  it('a manifest edited by hand without re-sealing it', async () => {
    const { manifest } = await backedUp();
    const m = await rewriteManifest(manifest, (x) => x.creates.push('src/index.ts'), { rehash: false });
    await expectRefused(m, /own sha256/);
    await expect(readManifest(root, 'm1')).rejects.toMatchObject({ code: 'BACKUP_CORRUPT' });
  });

  it('a manifest that is not JSON, or names a path outside the workspace', async () => {
    const { manifest } = await backedUp();
    await fsp.writeFile(manifestAbs(), '{"format": "copilot-onboarding/backup-manifest@1", ');
    const err = await readManifest(root, 'm1').catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'BACKUP_CORRUPT' });
    expect((err as OnboardingError).next).toMatch(/Restore/);
    await rewriteManifest(manifest, (x) => x.creates.push('../outside.md'));
    await expect(readManifest(root, 'm1')).rejects.toMatchObject({ code: 'BACKUP_CORRUPT' });
  });

  it.each([
    ['an entry "../evil"', () => tarEntry('../evil', 'File', Buffer.from('pwned')), /\.\./],
    ['an absolute entry', () => tarEntry(path.join(path.resolve(outer), 'evil'), 'File', Buffer.from('pwned')), /absolute/],
    ['a symlink entry', () => tarEntry(MONO, 'SymbolicLink', undefined, '/etc/passwd'), /SymbolicLink/],
    ['a hardlink entry', () => tarEntry(MONO, 'Link', undefined, '../evil'), /Link/],
    ['a character device entry', () => tarEntry(MONO, 'CharacterDevice'), /CharacterDevice/],
    ['a folder entry', () => tarEntry('.github/', 'Directory'), /Directory/],
    ['an entry the manifest does not list', () => tarEntry('src/index.ts', 'File', Buffer.from('x')), /does not list/],
  ])('an archive with %s (re-sealed manifest)', async (_name, entry, reason) => {
    const { manifest } = await backedUp();
    const good = manifest.files.map((f) => tarEntry(f.path, 'File', f.path === MONO ? MONO_BYTES : Buffer.from('old file\n')));
    const m = await replaceArchive(manifest, tgz(entry(), ...good));
    await expectRefused(m, reason);
  });

  it('an archive lacking a listed file', async () => {
    const { manifest } = await backedUp();
    const m = await replaceArchive(manifest, tgz(tarEntry(MONO, 'File', MONO_BYTES)));
    await expectRefused(m, /lacks \.github\/old\.md/);
  });

  it('an archive holding a listed file twice', async () => {
    const { manifest } = await backedUp();
    const once = [tarEntry(MONO, 'File', MONO_BYTES), tarEntry('.github/old.md', 'File', Buffer.from('old file\n'))];
    const m = await replaceArchive(manifest, tgz(...once, tarEntry(MONO, 'File', MONO_BYTES)));
    await expectRefused(m, /twice/);
  });

  it('a manifest object altered in memory', async () => {
    const { manifest } = await backedUp();
    const forged = { ...manifest, creates: ['src/index.ts'] };
    expect(await verifyBackup(root, forged)).toMatchObject({ ok: false, reason: expect.stringMatching(/own sha256/) });
    const unsafe = { ...manifest, files: [{ ...manifest.files[0]!, path: '../evil' }] };
    unsafe.sha256 = manifestHash(unsafe);
    expect(await verifyBackup(root, unsafe)).toMatchObject({ ok: false });
    expect(canonicalJson(await readManifest(root, 'm1'))).toBe(canonicalJson(manifest));
  });
});
