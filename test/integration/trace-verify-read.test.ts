/**
 * traces verify reads trace files (async, a bounded number at a time), following symlinks, and never
 * reads what is not a regular file in the end (a folder, a FIFO: it could block forever).
 */
import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyChain } from '../../server/src/io/traces.js';
import { removeWorkspace, tempWorkspace } from '../helpers/harness.js';
import { fillChain } from '../helpers/traces.js';

let root: string;
beforeEach(() => {
  root = tempWorkspace('co-traces-read-');
});
afterEach(() => removeWorkspace(root));

const dir = () => path.join(root, '.copilot-state', 'elicitation-traces');
const readError = (p: string) => fsp.readFile(p, 'utf8').then(() => 'read', (e: Error) => e.message);

describe('traces verify: how trace files are read', () => {
  it('a trace replaced by a symlink to the same content still verifies', async () => {
    const files = await fillChain(root, 3);
    const copy = path.join(root, 'copy.json');
    await fsp.copyFile(path.join(dir(), files[1]!), copy);
    await fsp.rm(path.join(dir(), files[1]!));
    await fsp.symlink(copy, path.join(dir(), files[1]!));
    expect(await verifyChain(root, 'elicitation')).toMatchObject({ ok: true, count: 3, lastSeq: 3, problems: [] });
  });

  it('a folder, a FIFO and a dangling symlink named like traces: unparseable, never read, no hang', async () => {
    await fillChain(root, 2);
    await fsp.mkdir(path.join(dir(), 'zz-folder.json'));
    await fsp.symlink(path.join(root, 'nowhere.json'), path.join(dir(), 'zz-dangling.json'));
    let fifo = false;
    try {
      execFileSync('mkfifo', [path.join(dir(), 'zz-fifo.json')]);
      fifo = true;
    } catch {
      /* no mkfifo on this machine */
    }
    const report = await verifyChain(root, 'elicitation');
    expect(report.count).toBe(fifo ? 5 : 4);
    const notRegular = 'not a regular file (a folder, FIFO, socket or device; not read)';
    expect(report.problems).toEqual([
      { kind: 'unparseable', file: 'zz-dangling.json', seq: null, message: `zz-dangling.json: ${await readError(path.join(dir(), 'zz-dangling.json'))}` },
      ...(fifo ? [{ kind: 'unparseable', file: 'zz-fifo.json', seq: null, message: `zz-fifo.json: ${notRegular}` }] : []),
      { kind: 'unparseable', file: 'zz-folder.json', seq: null, message: `zz-folder.json: ${notRegular}` },
    ]);
    expect(report.problems[0]!.message).toMatch(/ENOENT/);
  });

  it('files that are not trace objects are reported in name order, as before', async () => {
    const files = await fillChain(root, 2);
    await fsp.writeFile(path.join(dir(), 'a-null.json'), 'null');
    await fsp.writeFile(path.join(dir(), 'b-broken.json'), '{"seq": 1,');
    await fsp.writeFile(path.join(dir(), 'c-array.json'), '[1,2]');
    await fsp.writeFile(path.join(dir(), 'd-bom.json'), `\ufeff${await fsp.readFile(path.join(dir(), files[0]!), 'utf8')}`);
    const report = await verifyChain(root, 'elicitation');
    expect(report.problems.map((p) => [p.kind, p.file, p.message])).toEqual([
      ['unparseable', 'a-null.json', 'a-null.json: null'],
      ['unparseable', 'b-broken.json', 'b-broken.json: not valid JSON'],
      ['unparseable', 'c-array.json', 'c-array.json: does not match the elicitation trace schema'],
      ['unparseable', 'd-bom.json', 'd-bom.json: not valid JSON'],
    ]);
  });
});
