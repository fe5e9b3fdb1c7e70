import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { syncFiles, SYNC_BINARIES } from '../../server/src/io/durable.js';

const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'co-durable-'));
  dirs.push(d);
  return d;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function files(dir: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const f = path.join(dir, `f${i}.md`);
    writeFileSync(f, `file ${i}\n`);
    return f;
  });
}

describe('syncFiles', () => {
  it('says none for no files', async () => {
    expect(await syncFiles([])).toBe('none');
  });

  it.runIf(process.platform === 'linux' && SYNC_BINARIES.some((b) => existsSync(b)))(
    'uses one syncfs (coreutils sync -f) on Linux and leaves the files as written',
    async () => {
      const d = tmp();
      const list = files(d, 20);
      expect(await syncFiles(list)).toBe('syncfs');
      expect(await syncFiles(list.slice(0, 15))).toBe('fsync'); // too few to be worth a process
      expect(await syncFiles(list.slice(0, 2), { minFilesForSyncfs: 1 })).toBe('syncfs');
      expect(list.map((f) => readFileSync(f, 'utf8'))).toEqual(list.map((_, i) => `file ${i}\n`));
    },
  );

  it('falls back to one fsync per file without a sync binary', async () => {
    const d = tmp();
    const list = files(d, 5);
    expect(await syncFiles(list, { binaries: [path.join(d, 'no-such-sync')] })).toBe('fsync');
    expect(readFileSync(list[4]!, 'utf8')).toBe('file 4\n');
  });

  it.runIf(process.platform === 'linux')('falls back to fsync when sync -f fails (a binary that exits 1)', async () => {
    const d = tmp();
    const bin = path.join(d, 'bin');
    mkdirSync(bin);
    const fake = path.join(bin, 'sync');
    writeFileSync(fake, '#!/bin/sh\nexit 1\n');
    chmodSync(fake, 0o755);
    const list = files(d, 3);
    expect(await syncFiles(list, { binaries: [fake], minFilesForSyncfs: 1 })).toBe('fsync');
  });

  it('rejects, as a failed write would, when a file is missing', async () => {
    const d = tmp();
    const list = [...files(d, 2), path.join(d, 'gone.md')];
    await expect(syncFiles(list, { binaries: [] })).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(syncFiles(list, { minFilesForSyncfs: 1 })).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
