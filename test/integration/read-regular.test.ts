import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRegularFile } from '../../server/src/io/workspace.js';

let d: string;
beforeEach(() => {
  d = mkdtempSync(path.join(os.tmpdir(), 'co-read-regular-'));
});
afterEach(() => rmSync(d, { recursive: true, force: true }));

function hasMkfifo(): boolean {
  try {
    execFileSync('mkfifo', [path.join(d, 'probe')]);
    rmSync(path.join(d, 'probe'));
    return true;
  } catch {
    return false;
  }
}

describe('readRegularFile', () => {
  it('reads a regular file byte for byte', async () => {
    const f = path.join(d, 'a.yaml');
    writeFileSync(f, 'é\r\n\0x');
    expect(await readRegularFile(f)).toEqual(Buffer.from('é\r\n\0x'));
  });

  it('refuses a file over maxBytes with its size, reads one at the limit', async () => {
    const f = path.join(d, 'big');
    writeFileSync(f, 'x'.repeat(100));
    expect(await readRegularFile(f, { maxBytes: 99 })).toEqual({ tooLarge: 100 });
    expect(Buffer.isBuffer(await readRegularFile(f, { maxBytes: 100 }))).toBe(true);
  });

  it('a folder is not regular', async () => {
    mkdirSync(path.join(d, 'dir'));
    expect(await readRegularFile(path.join(d, 'dir'))).toEqual({ notRegular: true });
  });

  it('a symlink is not regular unless followSymlinks; a dangling one throws ENOENT when followed', async () => {
    const f = path.join(d, 'target');
    writeFileSync(f, 't');
    symlinkSync(f, path.join(d, 'link'));
    symlinkSync(path.join(d, 'nowhere'), path.join(d, 'dangling'));
    expect(await readRegularFile(path.join(d, 'link'))).toEqual({ notRegular: true });
    expect(await readRegularFile(path.join(d, 'link'), { followSymlinks: true })).toEqual(Buffer.from('t'));
    await expect(readRegularFile(path.join(d, 'dangling'), { followSymlinks: true })).rejects.toThrow(/ENOENT/);
  });

  it('a missing file throws ENOENT', async () => {
    await expect(readRegularFile(path.join(d, 'missing'))).rejects.toThrow(/ENOENT/);
  });

  it('a FIFO with no writer is reported at once, never waited on (directly or through a symlink)', async (ctx) => {
    if (!hasMkfifo()) ctx.skip();
    const fifo = path.join(d, 'fifo');
    execFileSync('mkfifo', [fifo]);
    symlinkSync(fifo, path.join(d, 'to-fifo'));
    expect(await readRegularFile(fifo)).toEqual({ notRegular: true });
    expect(await readRegularFile(path.join(d, 'to-fifo'), { followSymlinks: true })).toEqual({ notRegular: true });
  });
});
