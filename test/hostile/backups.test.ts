/**
 * Hostile backups: after a real migration, the manifest or the archive is damaged or replaced
 * by a forgery whose hashes match (the forger re-seals the manifest). Rollback must check the
 * backup before asking anyone, refuse with BACKUP_CORRUPT, and write nothing anywhere: the
 * migrated workspace, `.git/` and the folder outside stay exactly as they were.
 */
import { readFileSync, truncateSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cleanup,
  expectOk,
  expectRefused,
  expectSafe,
  forgeTarGz,
  guard,
  migrated,
  replaceArchive,
  rewriteManifest,
  sandbox,
  wsDigest,
  type Guard,
  type Sandbox,
  type TarEntry,
} from '../helpers/hostile.js';
import { put } from '../helpers/files.js';

afterEach(cleanup);

const REPO = '.github/copilot-instructions.md';

/** The example workspace with a `.git/config`, migrated; returns what a case needs to tamper with. */
async function migratedExample(): Promise<{ sb: Sandbox; original: Buffer; pre: Guard } & Awaited<ReturnType<typeof migrated>>> {
  const sb = sandbox({ example: true });
  put(sb.root, '.git/config', '[core]\n\trepositoryformatversion = 0\n');
  const original = readFileSync(path.join(sb.root, REPO));
  const pre = guard(sb);
  const m = await migrated(sb);
  return { sb, original, pre, ...m };
}

/** Rollback refuses BACKUP_CORRUPT before its form is shown, and nothing changes anywhere. */
async function expectRollbackRefused(ctx: Awaited<ReturnType<typeof migratedExample>>, reason: RegExp, before = guard(ctx.sb)): Promise<void> {
  const text = expectRefused(await ctx.h.call('onboarding_rollback', {}), 'BACKUP_CORRUPT');
  expect(text).toMatch(reason);
  expect(text).not.toMatch(/INTERNAL|Unexpected error/);
  expect(ctx.h.shown).toHaveLength(2); // approve + migrate; the rollback form never appeared
  await expectSafe(ctx.h, ctx.sb, before);
}

describe('damaged backups', () => {
  it('a truncated manifest: rollback refuses BACKUP_CORRUPT before asking, nothing is touched', async () => {
    const ctx = await migratedExample();
    const before = guard(ctx.sb);
    truncateSync(ctx.manifestAbs, Math.floor(readFileSync(ctx.manifestAbs).length / 2));
    await expectRollbackRefused(ctx, /manifest .* is corrupt \(not valid JSON\)/, before);
  });

  it('a truncated archive: rollback refuses BACKUP_CORRUPT before asking, nothing is touched', async () => {
    const ctx = await migratedExample();
    const before = guard(ctx.sb);
    truncateSync(ctx.archiveAbs, Math.floor(readFileSync(ctx.archiveAbs).length / 2));
    await expectRollbackRefused(ctx, /does not match the sha256 recorded in its manifest/, before);
  });
});

describe('forged archives whose hashes match the (re-sealed) manifest', () => {
  it('control: a hand-made archive holding exactly the backed-up file is accepted, and rollback is byte-exact', async () => {
    const ctx = await migratedExample();
    replaceArchive(ctx.archiveAbs, ctx.manifestAbs, forgeTarGz([{ name: REPO, body: ctx.original }]));
    expectOk(await ctx.h.call('onboarding_rollback', {}));
    expect(wsDigest(ctx.sb.root)).toEqual(ctx.pre.ws);
    await expectSafe(ctx.h, ctx.sb, ctx.pre);
  });

  it.each<[string, (sb: Sandbox, original: Buffer) => TarEntry[], RegExp]>([
    ['an entry with ../', (_sb, original) => [{ name: '../outside/canary.txt', body: 'pwned\n' }, { name: REPO, body: original }], /\.\./],
    ['an entry with an absolute path', (sb, original) => [{ name: path.join(sb.outside, 'canary.txt'), body: 'pwned\n' }, { name: REPO, body: original }], /an absolute path/],
    ['a symlink entry in place of the file', () => [{ name: REPO, type: '2', linkname: '../../outside/secret.md' }], /SymbolicLink|not a regular file/],
    ['a hard link entry in place of the file', (sb) => [{ name: REPO, type: '1', linkname: path.join(sb.outside, 'canary.txt') }], /Link|not a regular file/],
  ])('%s: rollback refuses BACKUP_CORRUPT, nothing is written anywhere', async (_name, entries, reason) => {
    const ctx = await migratedExample();
    const before = guard(ctx.sb);
    replaceArchive(ctx.archiveAbs, ctx.manifestAbs, forgeTarGz(entries(ctx.sb, ctx.original)));
    await expectRollbackRefused(ctx, reason, before);
  });
});

describe('forged manifests (re-sealed) that name paths rollback must never touch', () => {
  it.each<[string, (sb: Sandbox) => string]>([
    ['../outside/canary.txt', () => '../outside/canary.txt'],
    ['.git/config', () => '.git/config'],
    ['an absolute path (the canary outside, standing in for /etc/passwd)', (sb) => path.join(sb.outside, 'canary.txt')],
  ])('the manifest lists %s among the files to remove: rollback refuses BACKUP_CORRUPT, the file survives', async (_name, target) => {
    const ctx = await migratedExample();
    const before = guard(ctx.sb);
    const victim = target(ctx.sb);
    rewriteManifest(ctx.manifestAbs, (m) => {
      (m.creates as string[]).push(victim);
      (m.createdDirs as string[]).push(path.posix.dirname(victim));
    });
    await expectRollbackRefused(ctx, /manifest .* is corrupt .*not a safe workspace-relative POSIX path/, before);
    expect(readFileSync(path.join(ctx.sb.root, '.git/config'), 'utf8')).toContain('repositoryformatversion');
  });
});
