import { execFile } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TraceStore, recordHash, verifyChain, wholeHash } from '../../server/src/io/traces.js';
import { removeWorkspace, tempWorkspace } from '../helpers/harness.js';
import { fillChain, unsealed } from '../helpers/traces.js';

const run = promisify(execFile);
const DIST = path.resolve(import.meta.dirname, '../../dist');

let root: string;
beforeEach(() => {
  root = tempWorkspace('co-traces-');
});
afterEach(() => removeWorkspace(root));

const dir = () => path.join(root, '.copilot-state', 'elicitation-traces');
const readRec = async (f: string) => JSON.parse(await fsp.readFile(path.join(dir(), f), 'utf8')) as Record<string, unknown>;
const writeRec = (f: string, r: unknown) => fsp.writeFile(path.join(dir(), f), JSON.stringify(r, null, 2));

describe('trace chain', () => {
  it('links seq, prev_sha256 and sha256 over canonical JSON', async () => {
    const files = await fillChain(root, 3);
    const recs = await Promise.all(files.map(readRec));
    expect(recs.map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(recs[0]!.prev_sha256).toBeNull();
    expect(recs[1]!.prev_sha256).toBe(wholeHash(recs[0]!));
    expect(recs[2]!.prev_sha256).toBe(wholeHash(recs[1]!));
    for (const r of recs) expect(r.sha256).toBe(recordHash(r));
    expect(files[0]).toMatch(/^2026-11-22T10-00-00-000Z-approve\.json$/);
    const report = await verifyChain(root, 'elicitation');
    expect(report).toMatchObject({ ok: true, count: 3, lastSeq: 3, problems: [] });
  });

  it('gives unique names to traces of the same millisecond', async () => {
    const store = new TraceStore(root, 'elicitation');
    const a = await store.append(unsealed(1), 'approve');
    const b = await store.append(unsealed(1), 'approve');
    expect(a.file).not.toBe(b.file);
    expect(b.file).toMatch(/-approve-2\.json$/);
    expect((await verifyChain(root, 'elicitation')).ok).toBe(true);
  });

  it('detects a modified trace and names the file', async () => {
    const files = await fillChain(root, 4);
    const r = await readRec(files[1]!);
    r.outcome = 'declined';
    await writeRec(files[1]!, r);
    const report = await verifyChain(root, 'elicitation');
    expect(report.ok).toBe(false);
    expect(report.problems[0]).toMatchObject({ kind: 'modified', file: files[1] });
  });

  it('detects a modified trace whose sha256 was recomputed (the next link breaks)', async () => {
    const files = await fillChain(root, 4);
    const r = await readRec(files[1]!);
    r.outcome = 'declined';
    r.sha256 = recordHash(r);
    await writeRec(files[1]!, r);
    const report = await verifyChain(root, 'elicitation');
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => p.file)).toContain(files[2]);
  });

  it('detects a missing trace in the middle and at the end', async () => {
    const files = await fillChain(root, 5);
    await fsp.rm(path.join(dir(), files[2]!));
    let report = await verifyChain(root, 'elicitation');
    expect(report.problems[0]).toMatchObject({ kind: 'missing', file: files[3] });
    await fsp.rm(path.join(root, '.copilot-state'), { recursive: true });
    const again = await fillChain(root, 3);
    await fsp.rm(path.join(dir(), again[2]!));
    report = await verifyChain(root, 'elicitation');
    expect(report.ok).toBe(false);
    expect(report.problems[0]).toMatchObject({ kind: 'missing', seq: 3, file: again[2] });
  });

  it('detects an inserted trace (duplicate seq) and a forged one (links nowhere)', async () => {
    const files = await fillChain(root, 3);
    const copy = await readRec(files[1]!);
    copy.message = 'inserted';
    copy.file = '2026-11-22T10-00-00-001Z-approve-9.json'; // a forger seals the name it writes
    copy.sha256 = recordHash(copy);
    await writeRec('2026-11-22T10-00-00-001Z-approve-9.json', copy);
    let report = await verifyChain(root, 'elicitation');
    expect(report.problems.some((p) => p.kind === 'inserted')).toBe(true);
    await fsp.rm(path.join(dir(), '2026-11-22T10-00-00-001Z-approve-9.json'));
    const forged = await readRec(files[2]!);
    forged.prev_sha256 = 'f'.repeat(64);
    forged.sha256 = recordHash(forged);
    await writeRec(files[2]!, forged);
    // The hash chain alone names it (the key would also: its mac no longer matches).
    report = await verifyChain(root, 'elicitation', { key: null });
    expect(report.problems[0]).toMatchObject({ kind: 'forged', file: files[2] });
    report = await verifyChain(root, 'elicitation');
    expect(report.problems).toEqual(expect.arrayContaining([expect.objectContaining({ kind: 'forged', file: files[2] }), expect.objectContaining({ kind: 'unauthenticated', file: files[2] })]));
  });

  it('names the copy, not the original, when a re-sealed trace duplicates a seq', async () => {
    const files = await fillChain(root, 3);
    const copy = await readRec(files[1]!);
    copy.message = 'a forged approval';
    // Sorts before the original, so "first file wins" would blame the wrong one.
    const name = '2026-11-22T00-00-00-000Z-approve.json';
    copy.file = name;
    copy.sha256 = recordHash(copy);
    await writeRec(name, copy);
    const report = await verifyChain(root, 'elicitation');
    expect(report.problems).toEqual([expect.objectContaining({ kind: 'inserted', file: name, seq: 2 })]);
  });

  it('detects a trace appended by hand with a valid seal and link (the head never recorded it)', async () => {
    const files = await fillChain(root, 2);
    const last = await readRec(files[1]!);
    const extra = { ...last, seq: 3, prev_sha256: wholeHash(last), prev_file: files[1], outcome: 'approved', timestamp: '2026-11-22T11:00:00.000Z', file: '2026-11-22T11-00-00-000Z-approve.json' } as Record<string, unknown>;
    extra.sha256 = recordHash(extra);
    await writeRec('2026-11-22T11-00-00-000Z-approve.json', extra);
    // The head alone catches it (hash chain only); with the key, its mac does not match either.
    const chainOnly = await verifyChain(root, 'elicitation', { key: null });
    expect(chainOnly.ok).toBe(false);
    expect(chainOnly.problems).toEqual([expect.objectContaining({ kind: 'inserted', seq: 3, file: '2026-11-22T11-00-00-000Z-approve.json' })]);
    const keyed = await verifyChain(root, 'elicitation');
    expect(keyed.problems.map((p) => p.kind).sort()).toEqual(['inserted', 'unauthenticated']);
  });

  it('never reports a live append as a broken chain while another process is appending', async () => {
    await fillChain(root, 1);
    const writer = run(process.execPath, [path.resolve(import.meta.dirname, '../helpers/append-traces.mjs'), DIST, root, '60', 'W']);
    let done = false;
    void writer.finally(() => (done = true));
    let checks = 0;
    const seen: unknown[] = [];
    try {
      while (!done) {
        seen.push(...(await verifyChain(root, 'elicitation')).problems);
        checks++;
      }
    } finally {
      await writer;
    }
    expect(seen).toEqual([]);
    expect(checks).toBeGreaterThan(0);
    expect(await verifyChain(root, 'elicitation')).toMatchObject({ ok: true, lastSeq: 61 });
  });

  it('detects reordered traces (seq swapped and re-hashed)', async () => {
    const files = await fillChain(root, 4);
    const a = await readRec(files[1]!);
    const b = await readRec(files[2]!);
    [a.seq, b.seq] = [b.seq, a.seq];
    a.sha256 = recordHash(a);
    b.sha256 = recordHash(b);
    await writeRec(files[1]!, a);
    await writeRec(files[2]!, b);
    const report = await verifyChain(root, 'elicitation');
    expect(report.ok).toBe(false);
    expect(report.problems.some((p) => p.kind === 'reordered' || p.kind === 'forged')).toBe(true);
  });

  it('reports unparseable files', async () => {
    const files = await fillChain(root, 2);
    await fsp.writeFile(path.join(dir(), files[0]!), '{ not json');
    const report = await verifyChain(root, 'elicitation');
    expect(report.problems[0]).toMatchObject({ kind: 'unparseable', file: files[0] });
  });

  it('keeps one intact chain when two processes append at once', async () => {
    await Promise.all([
      run(process.execPath, [path.resolve(import.meta.dirname, '../helpers/append-traces.mjs'), DIST, root, '40', 'A']),
      run(process.execPath, [path.resolve(import.meta.dirname, '../helpers/append-traces.mjs'), DIST, root, '40', 'B']),
    ]);
    const report = await verifyChain(root, 'elicitation');
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ ok: true, count: 80, lastSeq: 80 });
  });

  it('repairs the head after a crash between writing a trace and the head', async () => {
    const store = new TraceStore(root, 'elicitation');
    await fillChain(root, 2);
    const head = JSON.parse(await fsp.readFile(path.join(dir(), '.head.json'), 'utf8'));
    // Simulate: pending marker written, trace written, head not updated.
    const third = await store.append(unsealed(3), 'approve');
    await fsp.writeFile(path.join(dir(), '.head.json'), JSON.stringify({ ...head, pending: { seq: 3, file: third.file } }));
    await store.append(unsealed(4), 'approve');
    const report = await verifyChain(root, 'elicitation');
    expect(report).toMatchObject({ ok: true, lastSeq: 4 });
  });

  it('fails loudly when the folder is not writable (callers fail closed)', async () => {
    await fsp.mkdir(path.join(root, '.copilot-state'), { recursive: true });
    await fsp.writeFile(dir(), 'a file where the folder should be');
    await expect(new TraceStore(root, 'elicitation').append(unsealed(1), 'approve')).rejects.toThrow();
  });
});
