/**
 * A full disk during migrate, injected at the io layer: `fs.promises.open` hands out file
 * handles whose `writeFile` writes half of the bytes and then fails with ENOSPC, for the Nth
 * durable write under a chosen folder. Whichever write fails (the journal, the backup archive,
 * its manifest, a staged instruction file), the answer is DISK_FULL naming the folder, no byte
 * of the workspace changed, and no partial backup, journal or temp file is left in the state folder.
 */
import { promises as fsp, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { textOf } from '../helpers/harness.js';
import { STATE, YES_APPROVE, YES_MIGRATE, cleanup, expectOk, expectRefused, expectSafe, guard, open, sandbox } from '../helpers/hostile.js';

afterEach(async () => {
  vi.restoreAllMocks();
  await cleanup();
});

/** Every file under `dir`, relative, recursively. */
function files(dir: string, rel = ''): string[] {
  let entries;
  try {
    entries = readdirSync(path.join(dir, rel), { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((e) => (e.isDirectory() ? files(dir, path.join(rel, e.name)) : [path.join(rel, e.name)]));
}

/** Make the `nth` exclusive create whose path matches `where` fail with ENOSPC half-way through its write. */
function fillDiskAt(where: RegExp, nth = 1): { hits: string[] } {
  const real = fsp.open.bind(fsp);
  const hits: string[] = [];
  let seen = 0;
  vi.spyOn(fsp, 'open').mockImplementation((async (file: Parameters<typeof fsp.open>[0], flags?: string | number, mode?: number) => {
    const fh = await real(file, flags, mode);
    if (flags === 'wx' && where.test(String(file)) && ++seen === nth) {
      hits.push(String(file));
      const write = fh.writeFile.bind(fh);
      fh.writeFile = async (data: Parameters<typeof fh.writeFile>[0]) => {
        const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data as Uint8Array);
        await write(bytes.subarray(0, Math.floor(bytes.length / 2)));
        throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC', errno: -28, syscall: 'write' });
      };
    }
    return fh;
  }) as typeof fsp.open);
  return { hits };
}

describe('a full disk during migrate', () => {
  it.each<[string, RegExp, number, string]>([
    ['the journal (the first write)', /\.copilot-state\/journal\.json/, 1, '.copilot-state'],
    ['the backup archive', /\.copilot-state\/backups\/\..*\.tar\.gz\.tmp$/, 1, '.copilot-state/backups'],
    ['the backup manifest (the archive is already written)', /\.copilot-state\/backups\/.*\.manifest\.json/, 1, '.copilot-state/backups'],
    ['a staged instruction file (the backup is complete)', /\.github\/instructions\/.*stage/, 2, '.github/instructions'],
  ])('ENOSPC writing %s: DISK_FULL naming the folder, nothing changed, no partial backup', async (_name, where, nth, folder) => {
    const sb = sandbox({ example: true });
    const h = await open(sb.root, { elicit: [YES_APPROVE, YES_MIGRATE] });
    expectOk(await h.call('onboarding_propose', { narrate: false }));
    expectOk(await h.call('onboarding_approve', {}));
    const before = guard(sb);
    const disk = fillDiskAt(where, nth);
    const r = await h.call('onboarding_migrate', {});
    vi.restoreAllMocks();
    expect(disk.hits, 'the injected write happened').toHaveLength(1);
    const text = expectRefused(r, /^DISK_FULL: /);
    expect(text).toContain(`${path.join(sb.root, folder)} is full (ENOSPC)`);
    expect(text).toMatch(/Nothing was changed/);
    expect(text).toMatch(/Free space on the disk that holds/);
    const st = await expectSafe(h, sb, before);
    expect(st.lastMigration).toBeNull();
    const state = path.join(sb.root, STATE);
    const backups = files(path.join(state, 'backups')).sort();
    if (folder === '.copilot-state' || folder === '.copilot-state/backups') expect(backups, 'no partial backup').toEqual([]);
    // Once the backup was complete and checked, it stays (whole) beside the undone migration.
    else expect(backups.map((f) => f.replace(/^.*?(\.manifest\.json|\.tar\.gz)$/, '$1'))).toEqual(['.manifest.json', '.tar.gz']);
    expect(files(state).filter((f) => f === 'journal.json' || f.endsWith('.tmp')), 'no journal, no temp file').toEqual([]);
    expect(files(path.join(sb.root, '.github')).filter((f) => /stage|\.tmp$/.test(f)), 'no staged file').toEqual([]);
    // The migrate trace says what happened; the approval stays unused... and the disk, freed, works.
    expect(textOf(await h.call('onboarding_status', {}))).not.toMatch(/INTERNAL/);
  });
});
