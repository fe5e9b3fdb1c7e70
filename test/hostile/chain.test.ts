/**
 * The chain around the gate: a mandatory head (cross-checked with onboarding.json), file names
 * inside the seal, approvals bound to a workspace and a sealed expiry, sealed times bounded by
 * the clock, and a state folder that may not lead outside the workspace. Each case is an
 * attack that worked before these checks.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { TraceStore, verifyChain } from '../../server/src/io/traces.js';
import { loadState, saveState } from '../../server/src/io/state.js';
import { assertWorkspaceFolder } from '../../server/src/io/workspace.js';
import { textOf } from '../helpers/harness.js';
import { fillChain, unsealed } from '../helpers/traces.js';
import { STATE, TRACES, YES_APPROVE, YES_MIGRATE, approveAnswered, cleanup, expectOk, expectRefused, expectSafe, guard, open, sandbox, traceRecords } from '../helpers/hostile.js';

afterEach(cleanup);
const run = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../dist/index.js');
const headOf = (root: string) => path.join(root, TRACES, '.head.json');

describe('chain head is mandatory and cross-checked with onboarding.json', () => {
  it('head deleted with the newest trace: verify fails, append refuses to rebuild it', async () => {
    const { root } = sandbox();
    const files = await fillChain(root, 3);
    rmSync(headOf(root));
    rmSync(path.join(root, TRACES, files[2]!));
    const r = await verifyChain(root, 'elicitation');
    expect(r.ok).toBe(false);
    expect(r.problems.map((p) => p.kind)).toEqual(expect.arrayContaining(['head', 'missing']));
    await expect(new TraceStore(root, 'elicitation').append(unsealed(9), 'approve')).rejects.toThrow(/head\.json is missing/);
    expect(existsSync(headOf(root))).toBe(false);
  });

  it('corrupt head: verify fails, append refuses', async () => {
    const { root } = sandbox();
    await fillChain(root, 2);
    writeFileSync(headOf(root), '{"seq": "two"');
    expect((await verifyChain(root, 'elicitation')).problems).toEqual([expect.objectContaining({ kind: 'head' })]);
    await expect(new TraceStore(root, 'elicitation').append(unsealed(9), 'approve')).rejects.toThrow(/corrupt/);
  });

  it('tail deleted and the head rewritten to match: onboarding.json still knows the last seq', async () => {
    const { root } = sandbox();
    const files = await fillChain(root, 3);
    const second = JSON.parse(readFileSync(path.join(root, TRACES, files[1]!), 'utf8')) as Record<string, unknown>;
    rmSync(path.join(root, TRACES, files[2]!));
    const { wholeHash } = await import('../../server/src/io/traces.js');
    writeFileSync(headOf(root), JSON.stringify({ seq: 2, sha256: wholeHash(second), file: files[1] }));
    const r = await verifyChain(root, 'elicitation');
    expect(r.problems).toEqual([expect.objectContaining({ kind: 'missing', seq: 3, file: files[2] })]);
    await expect(new TraceStore(root, 'elicitation').append(unsealed(9), 'approve')).rejects.toThrow(/onboarding\.json records seq 3/);
  });

  it('tail deleted and onboarding.json rewritten to match: the head still knows the last seq', async () => {
    // The head alone catches this (the mutation check removes the head check and expects this test to fail).
    const { root } = sandbox();
    const files = await fillChain(root, 3);
    const second = JSON.parse(readFileSync(path.join(root, TRACES, files[1]!), 'utf8')) as Record<string, unknown>;
    rmSync(path.join(root, TRACES, files[2]!));
    const { wholeHash } = await import('../../server/src/io/traces.js');
    const s = await loadState(root);
    s.chains = { ...s.chains, elicitation: { seq: 2, sha256: wholeHash(second), file: files[1]! } };
    await saveState(root, s);
    const r = await verifyChain(root, 'elicitation');
    expect(r.ok).toBe(false);
    expect(r.problems).toEqual([expect.objectContaining({ kind: 'missing', seq: 3, file: files[2] })]);
  });

  it('folder wiped: the chain does not restart at seq 1', async () => {
    const { root } = sandbox();
    await fillChain(root, 2);
    rmSync(path.join(root, TRACES), { recursive: true });
    expect((await verifyChain(root, 'elicitation')).problems).toEqual([expect.objectContaining({ kind: 'missing', seq: 2 })]);
    await expect(new TraceStore(root, 'elicitation').append(unsealed(9), 'approve')).rejects.toThrow(/records seq 2/);
  });

  it('a version 1 onboarding.json is read and written back as version 2 with the chain mark', async () => {
    const { root } = sandbox();
    mkdirSync(path.join(root, STATE));
    const v1 = { version: 1, status: 'new', updatedAt: '2026-01-01T00:00:00.000Z', pattern: null, currentPlan: null, approval: null, migrations: [] };
    writeFileSync(path.join(root, STATE, 'onboarding.json'), JSON.stringify(v1));
    await saveState(root, await loadState(root));
    await fillChain(root, 1);
    const s = await loadState(root);
    expect(s.version).toBe(2);
    expect(s.workspaceId).toBe(readFileSync(path.join(root, STATE, 'workspace-id'), 'utf8').trim());
    expect(s.chains?.elicitation?.seq).toBe(1);
  });

  it('gate: the head deleted after an approval: migrate refuses TRACE_CHAIN_BROKEN and never asks', async () => {
    const { sb, h } = await approveAnswered([YES_APPROVE, YES_MIGRATE]);
    rmSync(headOf(sb.root));
    const before = guard(sb);
    const m = await h.call('onboarding_migrate', {});
    expect(expectRefused(m, 'TRACE_CHAIN_BROKEN')).toMatch(/head\.json is missing/);
    expect(h.shown).toHaveLength(1);
    await expectSafe(h, sb, before);
  });
});

describe('trace file names are sealed', () => {
  it('two trace files swapped: verify names both; a lookup by name finds nothing', async () => {
    const { root } = sandbox();
    const [a, b] = await fillChain(root, 2);
    const dir = path.join(root, TRACES);
    renameSync(path.join(dir, a!), path.join(dir, 'tmp'));
    renameSync(path.join(dir, b!), path.join(dir, a!));
    renameSync(path.join(dir, 'tmp'), path.join(dir, b!));
    const r = await verifyChain(root, 'elicitation');
    expect(r.problems.filter((p) => p.kind === 'renamed').map((p) => p.file).sort()).toEqual([a, b].sort());
    expect(await new TraceStore(root, 'elicitation').get(a!)).toBeNull();
  });

  it("the head's file differs from the record at its seq: verify fails", async () => {
    const { root } = sandbox();
    await fillChain(root, 2);
    const head = JSON.parse(readFileSync(headOf(root), 'utf8')) as Record<string, unknown>;
    writeFileSync(headOf(root), JSON.stringify({ ...head, file: 'elsewhere.json' }));
    expect((await verifyChain(root, 'elicitation')).problems).toEqual([expect.objectContaining({ kind: 'renamed' })]);
  });
});

describe('approvals bound to a workspace, a sealed expiry and the clock', () => {
  it('an approval copied into another checkout of the same files is not honoured there', async () => {
    const a = sandbox({ example: true });
    const ha = await open(a.root, { elicit: [YES_APPROVE] });
    expectOk(await ha.call('onboarding_propose', { narrate: false }));
    expectOk(await ha.call('onboarding_approve', {}));
    const b = sandbox({ example: true });
    const hb = await open(b.root, { elicit: [YES_MIGRATE] });
    expectOk(await hb.call('onboarding_propose', { narrate: false }));
    cpSync(path.join(a.root, TRACES), path.join(b.root, TRACES), { recursive: true });
    const before = guard(b);
    const m = await hb.call('onboarding_migrate', {});
    expect(expectRefused(m, 'NOT_APPROVED')).toMatch(/another workspace/);
    expect(hb.shown).toHaveLength(0);
    await expectSafe(hb, b, before);
  });

  it('an approval that expired under a short TTL does not revive under a longer one', async () => {
    const sb = sandbox({ example: true });
    let now = Date.now();
    const h1 = await open(sb.root, { elicit: [YES_APPROVE], config: { approvalTtlMs: 60_000, now: () => now } });
    expectOk(await h1.call('onboarding_propose', { narrate: false }));
    expectOk(await h1.call('onboarding_approve', {}));
    now += 120_000;
    const h2 = await open(sb.root, { elicit: [YES_MIGRATE], config: { approvalTtlMs: 24 * 3_600_000, now: () => now } });
    const before = guard(sb);
    expectRefused(await h2.call('onboarding_migrate', {}), 'APPROVAL_EXPIRED');
    expect(h2.shown).toHaveLength(0);
    await expectSafe(h2, sb, before);
  });

  it('a trace sealed in the future, or before its predecessor, breaks the chain', async () => {
    const future = sandbox().root;
    await fillChain(future, 1, { now: () => Date.now() + 3_600_000 });
    expect((await verifyChain(future, 'elicitation')).problems).toEqual([expect.objectContaining({ kind: 'dated', seq: 1 })]);
    // Within the allowed clock skew it is fine.
    const skew = sandbox().root;
    await fillChain(skew, 1, { now: () => Date.now() + 60_000 });
    expect((await verifyChain(skew, 'elicitation')).ok).toBe(true);
    const back = sandbox().root;
    let t = Date.now();
    const store = new TraceStore(back, 'elicitation', { now: () => t });
    await store.append(unsealed(1), 'approve');
    t -= 60_000;
    await store.append(unsealed(2), 'approve');
    expect((await verifyChain(back, 'elicitation')).problems).toEqual([expect.objectContaining({ kind: 'dated', seq: 2 })]);
  });

  it('gate: an approve trace dated in the future is refused by migrate (chain broken), never asked', async () => {
    const sb = sandbox({ example: true });
    const h1 = await open(sb.root, { elicit: [YES_APPROVE], config: { now: () => Date.now() + 3_600_000 } });
    expectOk(await h1.call('onboarding_propose', { narrate: false }));
    expectOk(await h1.call('onboarding_approve', {}));
    const h2 = await open(sb.root, { elicit: [YES_MIGRATE] });
    const before = guard(sb);
    expect(expectRefused(await h2.call('onboarding_migrate', {}), 'TRACE_CHAIN_BROKEN')).toMatch(/dated in the future/);
    expect(h2.shown).toHaveLength(0);
    await expectSafe(h2, sb, before);
    expect(traceRecords(sb.root).find((t) => t.rec.action === 'approve')!.rec).toMatchObject({ format: 'copilot-onboarding/elicitation-trace@3', workspace: expect.any(String), expires_at: expect.any(String), mac: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });
});

describe('.copilot-state symlinked outside the workspace', () => {
  it('is refused by the MCP tools and the CLI, and nothing is written outside', async () => {
    const sb = sandbox({ example: true });
    symlinkSync(sb.outside, path.join(sb.root, STATE));
    expect(() => assertWorkspaceFolder(sb.root)).toThrow(/resolves outside the workspace/);
    const h = await open(sb.root, { elicit: [YES_APPROVE] });
    for (const tool of ['onboarding_analyze', 'onboarding_propose', 'onboarding_status']) {
      expect(textOf(await h.call(tool, { narrate: false }))).toMatch(/PATH_OUTSIDE_WORKSPACE/);
    }
    await expect(h.client.readResource({ uri: 'copilot-onboarding://status' })).rejects.toThrow(/outside the workspace/);
    const cli = await run(process.execPath, [BIN, 'status', '--workspace', sb.root, '--json']).then(
      () => null,
      (e: { code: number; stdout: string }) => e,
    );
    expect(cli?.code).toBe(2);
    expect(cli?.stdout).toMatch(/PATH_OUTSIDE_WORKSPACE/);
    expect(h.shown).toHaveLength(0);
    expect(readFileSync(path.join(sb.outside, 'canary.txt'), 'utf8')).toBe('the server must never write here\n');
    expect(existsSync(path.join(sb.outside, 'plans'))).toBe(false);
    expect(existsSync(path.join(sb.outside, 'onboarding.json'))).toBe(false);
  });

  it('a chain folder inside .copilot-state linked outside is refused too; a link that stays inside works', async () => {
    const sb = sandbox({ example: true });
    mkdirSync(path.join(sb.root, STATE));
    symlinkSync(sb.outside, path.join(sb.root, TRACES));
    expect(() => assertWorkspaceFolder(sb.root)).toThrow(/elicitation-traces resolves outside/);
    rmSync(path.join(sb.root, STATE), { recursive: true });
    mkdirSync(path.join(sb.root, 'state-real'));
    symlinkSync('state-real', path.join(sb.root, STATE));
    const h = await open(sb.root, { elicit: [YES_APPROVE] });
    expectOk(await h.call('onboarding_propose', { narrate: false }));
    expectOk(await h.call('onboarding_approve', {}));
    expect(existsSync(path.join(sb.root, 'state-real', 'elicitation-traces', '.head.json'))).toBe(true);
  });
});
