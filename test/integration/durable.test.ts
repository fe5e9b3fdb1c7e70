import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { atomicWriteFile, writeDurable } from '../../server/src/io/durable.js';
import { tempDirsPerTest } from '../helpers/files.js';

const tmp = tempDirsPerTest('co-durable-');

describe('writeDurable', () => {
  it('creates a file that must not exist yet, and refuses one that does', async () => {
    const f = path.join(tmp(), 'a.md');
    await writeDurable(f, 'first\n');
    expect(readFileSync(f, 'utf8')).toBe('first\n');
    await expect(writeDurable(f, 'second\n')).rejects.toMatchObject({ code: 'EEXIST' });
    expect(readFileSync(f, 'utf8')).toBe('first\n');
  });

  it('replaces a leftover when asked to, and sets the mode exactly', async () => {
    const f = path.join(tmp(), 'b.md');
    writeFileSync(f, 'leftover of a crashed attempt');
    await writeDurable(f, 'fresh\n', { replace: true, mode: 0o751 });
    expect(readFileSync(f, 'utf8')).toBe('fresh\n');
    if (process.platform !== 'win32') expect(statSync(f).mode & 0o7777).toBe(0o751);
  });

  it('rejects, as a failed write would, when the folder is missing', async () => {
    await expect(writeDurable(path.join(tmp(), 'gone', 'c.md'), 'x')).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('atomicWriteFile', () => {
  it('replaces a file and leaves no side file behind', async () => {
    const d = tmp();
    const f = path.join(d, 'sub', 'state.json');
    await atomicWriteFile(f, '{"v":1}\n');
    await atomicWriteFile(f, '{"v":2}\n');
    expect(readFileSync(f, 'utf8')).toBe('{"v":2}\n');
    expect(readdirSync(path.dirname(f))).toEqual(['state.json']);
  });

  it('uses a named side file when given one, replacing a leftover there', async () => {
    const d = tmp();
    const f = path.join(d, 'x.md');
    const side = path.join(d, '.x.md.restore');
    writeFileSync(side, 'leftover');
    await atomicWriteFile(f, 'restored\n', { tmp: side, mode: 0o600 });
    expect(readFileSync(f, 'utf8')).toBe('restored\n');
    expect(readdirSync(d)).toEqual(['x.md']);
  });
});
