/**
 * Tampered trace chains: migrate must refuse with TRACE_CHAIN_BROKEN (never INTERNAL) before
 * asking to confirm, whether a trace was modified, deleted, or inserted by a forger who seals
 * it correctly; and a trace folder replaced by a file makes every gate fail closed with a
 * clear trace error.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { textOf } from '../helpers/harness.js';
import { TRACES, YES_APPROVE, YES_MIGRATE, approveAnswered, cleanup, expectOk, expectRefused, expectSafe, guard, open, reseal, sandbox, traceRecords, wholeSha } from '../helpers/hostile.js';

afterEach(cleanup);

describe('trace folder replaced by a file', () => {
  it('after a valid approval: migrate fails closed with a clear trace error (not INTERNAL), asks nobody, changes nothing', async () => {
    const { sb, h } = await approveAnswered([YES_APPROVE, YES_MIGRATE]);
    const dir = path.join(sb.root, '.copilot-state/elicitation-traces');
    rmSync(dir, { recursive: true });
    writeFileSync(dir, 'not a folder\n');
    const before = guard(sb);
    const m = await h.call('onboarding_migrate', {});
    const text = textOf(m);
    expect(m.isError).toBe(true);
    expect(text).toMatch(/TRACE_CHAIN_BROKEN|TRACE_WRITE_FAILED/);
    expect(text).not.toMatch(/INTERNAL|Unexpected error/);
    expect(h.shown).toHaveLength(1); // only the approval form, never the migrate form
    await expectSafe(h, sb, before);
  });
});

const DECLINE: ElicitResult = { action: 'decline' };
/** What a forger writes to turn a declined approval into an approved one (with the expiry a @2 approval seals). */
const APPROVED = { outcome: 'approved', response: { action: 'accept', content: { approved: true } }, error: null, duration_ms: 4200, expires_at: new Date(Date.now() + 3_600_000).toISOString() };

/** Trace files in seq order (two traces of one millisecond get `-2` names, which sort first). */
type Trace = ReturnType<typeof traceRecords>[number];

describe('tampered trace chains', () => {
  it.each<[string, ElicitResult[], (root: string, traces: Trace[]) => RegExp]>([
    [
      "modified: the approval's message edited, seal left as it was",
      [YES_APPROVE],
      (_root, [t]) => {
        writeFileSync(t!.abs, JSON.stringify({ ...t!.rec, message: `${String(t!.rec.message)}\n(also delete src/)` }, null, 2));
        return new RegExp(`${t!.file}: content does not match its sha256`);
      },
    ],
    [
      'modified and re-sealed: a declined approval turned into "approved", its own sha256 recomputed',
      [DECLINE],
      (_root, [t]) => {
        writeFileSync(t!.abs, JSON.stringify(reseal({ ...t!.rec, ...APPROVED }), null, 2));
        return new RegExp(`${t!.file}: is not the trace the chain head recorded`);
      },
    ],
    [
      'deleted: the first of two traces removed',
      [DECLINE, YES_APPROVE],
      (_root, [first]) => {
        rmSync(first!.abs);
        return /seq 2 follows seq 0; trace\(s\) 1\.\.1 are missing/;
      },
    ],
    [
      'inserted with a valid seal: a second trace with the same seq, outcome "approved"',
      [DECLINE],
      (_root, [t]) => {
        const copy = t!.abs.replace(/\.json$/, '-2.json');
        writeFileSync(copy, JSON.stringify(reseal({ ...t!.rec, ...APPROVED, file: path.basename(copy) }), null, 2));
        // Either of the two seq-1 files may be named (the verifier orders them by file name).
        return /approve(-2)?\.json: a second trace with seq 1 \(inserted\)/;
      },
    ],
    // The head file records the last link written (seq 1 here, no pending append), so a trace
    // with a higher seq that the head never recorded was not written by the server.
    [
      'appended with a valid seal and a valid link: an "approved" trace after the decline, the head file left alone',
      [DECLINE],
      (root, [t]) => {
        const timestamp = new Date().toISOString();
        const file = `${timestamp.replace(/[:.]/g, '-')}-approve.json`;
        const rec = reseal({ ...t!.rec, ...APPROVED, seq: 2, prev_sha256: wholeSha(t!.rec), timestamp, file, sealed_at: timestamp });
        writeFileSync(path.join(root, TRACES, file), JSON.stringify(rec, null, 2));
        return new RegExp(file.replace(/[.]/g, '\\.'));
      },
    ],
  ])('%s: migrate refuses TRACE_CHAIN_BROKEN saying which trace is wrong, never asks to confirm, changes nothing', async (_name, answers, tamper) => {
    const sb = sandbox({ example: true });
    // A migrate confirmation is scripted: if the forgery were believed, the migration would run.
    const h = await open(sb.root, { elicit: [...answers, YES_MIGRATE] });
    expectOk(await h.call('onboarding_propose', { narrate: false }));
    for (let i = 0; i < answers.length; i++) await h.call('onboarding_approve', {});
    const names = tamper(sb.root, traceRecords(sb.root).sort((a, b) => Number(a.rec.seq) - Number(b.rec.seq)));
    const before = guard(sb);
    const m = await h.call('onboarding_migrate', {});
    const text = expectRefused(m, 'TRACE_CHAIN_BROKEN');
    expect(text).toMatch(names);
    expect(h.shown, 'the migrate form must never be shown on a broken chain').toHaveLength(answers.length);
    await expectSafe(h, sb, before);
  });
});
