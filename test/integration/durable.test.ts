import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { syncFiles } from '../../server/src/io/durable.js';

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
  it('resolves for no files', async () => {
    await expect(syncFiles([])).resolves.toBeUndefined();
  });

  it('fsyncs every file and leaves the files as written', async () => {
    const d = tmp();
    const list = files(d, 40);
    await syncFiles(list);
    expect(list.map((f) => readFileSync(f, 'utf8'))).toEqual(list.map((_, i) => `file ${i}\n`));
  });

  it('rejects, as a failed write would, when a file is missing', async () => {
    const d = tmp();
    const list = [...files(d, 2), path.join(d, 'gone.md')];
    await expect(syncFiles(list)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
