import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRegularFileSync } from '../../server/src/io/workspace.js';

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

describe('readRegularFileSync', () => {
  it('reads a regular file byte for byte', () => {
    const f = path.join(d, 'a.yaml');
    writeFileSync(f, 'é\r\n\0x');
    expect(readRegularFileSync(f)).toEqual(Buffer.from('é\r\n\0x'));
  });

  it('refuses a file over maxBytes with its size, reads one at the limit', () => {
    const f = path.join(d, 'big');
    writeFileSync(f, 'x'.repeat(100));
    expect(readRegularFileSync(f, { maxBytes: 99 })).toEqual({ tooLarge: 100 });
    expect(Buffer.isBuffer(readRegularFileSync(f, { maxBytes: 100 }))).toBe(true);
  });

  it('a folder is not regular', () => {
    mkdirSync(path.join(d, 'dir'));
    expect(readRegularFileSync(path.join(d, 'dir'))).toEqual({ notRegular: true });
  });

  it('a symlink is not regular unless followSymlinks; a dangling one throws ENOENT when followed', () => {
    const f = path.join(d, 'target');
    writeFileSync(f, 't');
    symlinkSync(f, path.join(d, 'link'));
    symlinkSync(path.join(d, 'nowhere'), path.join(d, 'dangling'));
    expect(readRegularFileSync(path.join(d, 'link'))).toEqual({ notRegular: true });
    expect(readRegularFileSync(path.join(d, 'link'), { followSymlinks: true })).toEqual(Buffer.from('t'));
    expect(() => readRegularFileSync(path.join(d, 'dangling'), { followSymlinks: true })).toThrow(/ENOENT/);
  });

  it('a missing file throws ENOENT', () => {
    expect(() => readRegularFileSync(path.join(d, 'missing'))).toThrow(/ENOENT/);
  });

  it('a FIFO with no writer is reported at once, never waited on (directly or through a symlink)', (ctx) => {
    if (!hasMkfifo()) ctx.skip();
    const fifo = path.join(d, 'fifo');
    execFileSync('mkfifo', [fifo]);
    symlinkSync(fifo, path.join(d, 'to-fifo'));
    expect(readRegularFileSync(fifo)).toEqual({ notRegular: true });
    expect(readRegularFileSync(path.join(d, 'to-fifo'), { followSymlinks: true })).toEqual({ notRegular: true });
  });
});
