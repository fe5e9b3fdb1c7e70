/**
 * The gates end to end, through the SDK client: approve, migrate, rollback only happen when a
 * person accepts a form with the boolean fields literally true. Every other answer changes
 * nothing (asserted on the files) and is traced (asserted on the trace chain).
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { YES_APPROVE, YES_MIGRATE, YES_ROLLBACK, harnessesPerTest, textOf, type ElicitScript, type Harness } from '../helpers/harness.js';
import { digest, exampleWorkspace, readTraces } from '../helpers/workspace.js';
import { verifyChain } from '../../server/src/io/traces.js';
import { canonicalJson, sha256Hex } from '../../server/src/core/canonical.js';
import { commitRollback, prepareRollback } from '../../server/src/app/rollback.js';

const harnesses = harnessesPerTest();

async function start(elicit: ElicitScript[], config: Record<string, number> = {}, caps: Record<string, unknown> = { elicitation: {} }): Promise<Harness> {
  return harnesses.open({ root: exampleWorkspace(), caps, elicit, config });
}

const sc = (r: { structuredContent?: unknown }) => r.structuredContent as Record<string, unknown>;

describe('the happy path', () => {
  it('propose → approve → migrate → rollback restores every byte', async () => {
    const hh = await start([YES_APPROVE, YES_MIGRATE, YES_ROLLBACK]);
    const before = await digest(hh.root);
    const p = await hh.call('onboarding_propose', { narrate: false });
    expect(p.isError).toBeFalsy();
    const plan = sc(p);
    expect((plan.operations as unknown[]).length).toBeGreaterThan(1);

    const a = await hh.call('onboarding_approve', {});
    expect(a.isError).toBeFalsy();
    expect(sc(a)).toMatchObject({ approved: true, planId: plan.planId });
    // What the human saw: plan id, hash prefix, files, backup, problems.
    const msg = hh.shown[0]!.message;
    expect(msg).toContain(String(plan.planId));
    expect(msg).toContain(String(plan.sha256).slice(0, 12));
    expect(msg).toMatch(/\d+ files? created/);
    expect(msg).toContain('.copilot-state/backups/');
    expect(msg).toMatch(/Problems found/);
    const schema = (hh.shown[0] as { requestedSchema: { properties: Record<string, { type: string; default?: unknown }>; required: string[] } }).requestedSchema;
    expect(schema.properties.approved).toMatchObject({ type: 'boolean', default: false });
    expect(schema.required).toEqual(['approved']);
    expect(await digest(hh.root)).toEqual(before);

    const progress: unknown[] = [];
    const m = await hh.call('onboarding_migrate', {}, { onprogress: (x) => progress.push(x) });
    expect(m.isError, textOf(m)).toBeFalsy();
    const mig = sc(m);
    expect(mig).toMatchObject({ migrated: true, verified: true });
    expect(progress.length).toBeGreaterThan(0);
    const migSchema = (hh.shown[1] as { requestedSchema: { required: string[] } }).requestedSchema;
    expect(migSchema.required.sort()).toEqual(['confirmed', 'understood_risks']);
    const after = await digest(hh.root);
    expect(after).not.toEqual(before);
    expect(Object.keys(after).some((f) => f.startsWith('.github/instructions/'))).toBe(true);
    const backup = mig.backup as { archive: string; manifest: string };
    await fsp.access(path.join(hh.root, backup.archive));

    const r = await hh.call('onboarding_rollback', {});
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(await digest(hh.root)).toEqual(before);
    await expect(fsp.access(path.join(hh.root, '.github/instructions'))).rejects.toThrow();

    const traces = await readTraces(hh.root);
    expect(traces.map((t) => `${t.action}:${t.outcome}`)).toEqual(['approve:approved', 'migrate:approved', 'rollback:approved']);
    expect((await verifyChain(hh.root, 'elicitation')).ok).toBe(true);

    // After rollback the next propose starts clean.
    const st = sc(await hh.call('onboarding_status', {}));
    expect(st).toMatchObject({ status: 'rolled-back', currentPlan: null });
  });
});

describe('approve: nothing but an accepted, ticked form approves', () => {
  const cases: Array<[string, ElicitScript, string]> = [
    ['decline', { action: 'decline' }, 'declined'],
    ['cancel', { action: 'cancel' }, 'cancelled'],
    ['approved: false', { action: 'accept', content: { approved: false } }, 'declined'],
    ['"true" as a string', (() => ({ action: 'accept', content: { approved: 'true' } })) as unknown as ElicitScript, 'error'],
    ['accept without content', { action: 'accept' }, 'declined'],
    ['extra fields but approved missing', { action: 'accept', content: { confirmed: true, yes: true } }, 'declined'],
  ];
  it.each(cases)('%s', async (_name, answer, outcome) => {
    const hh = await start([answer]);
    await hh.call('onboarding_propose', { narrate: false });
    const before = await digest(hh.root);
    const r = await hh.call('onboarding_approve', {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Nothing was changed/);
    expect(await digest(hh.root)).toEqual(before);
    const [t] = await readTraces(hh.root);
    expect(t).toMatchObject({ action: 'approve', outcome });
    // And migrate refuses: there is no approval.
    const m = await hh.call('onboarding_migrate', {});
    expect(m.isError).toBe(true);
    expect(textOf(m)).toMatch(/NOT_APPROVED/);
    expect(await digest(hh.root)).toEqual(before);
  });

  it('timeout counts as a cancel', async () => {
    const hh = await start(['hang'], { approvalTimeoutMs: 150 });
    await hh.call('onboarding_propose', { narrate: false });
    const r = await hh.call('onboarding_approve', {});
    expect(r.isError).toBe(true);
    expect((await readTraces(hh.root))[0]).toMatchObject({ outcome: 'timeout' });
  });

  it('MCP cancellation of the tool call aborts the form; nothing is approved', async () => {
    const hh = await start(['hang']);
    await hh.call('onboarding_propose', { narrate: false });
    const ac = new AbortController();
    const pending = hh.call('onboarding_approve', {}, { signal: ac.signal });
    await hh.waitForElicitation();
    ac.abort('stop');
    await expect(pending).rejects.toThrow();
    await hh.waitForAbort();
    expect(hh.aborted).toBe(1);
    await vi.waitFor(async () => expect((await readTraces(hh.root))[0]).toMatchObject({ action: 'approve', outcome: 'cancelled' }));
    expect(textOf(await hh.call('onboarding_migrate', {}))).toMatch(/NOT_APPROVED/);
  });

  it('client disconnect during the form changes nothing', async () => {
    const hh = await start(['hang']);
    await hh.call('onboarding_propose', { narrate: false });
    const before = await digest(hh.root);
    const pending = hh.call('onboarding_approve', {}).catch((e: Error) => e);
    await hh.waitForElicitation();
    await hh.close();
    expect(await pending).toBeInstanceOf(Error);
    await vi.waitFor(async () => expect((await readTraces(hh.root))[0]).toMatchObject({ action: 'approve', outcome: 'cancelled', error: expect.stringMatching(/^disconnect: the client disconnected while the form was open/) }));
    expect(await digest(hh.root)).toEqual(before);
  });

  it('a client without elicitation gets a refusal naming it, and an "unsupported" trace', async () => {
    const root = exampleWorkspace();
    const h = await harnesses.open({ root, caps: {}, clientName: 'NoFormsClient' });
    await h.call('onboarding_propose', { narrate: false });
    const before = await digest(root);
    for (const tool of ['onboarding_approve', 'onboarding_migrate']) {
      const r = await h.call(tool, {});
      expect(r.isError).toBe(true);
      // Capability first: migrate does not answer NOT_APPROVED (approve could never fix that here).
      expect(textOf(r)).toMatch(/^ELICITATION_UNSUPPORTED: .*NoFormsClient.*elicitation/);
    }
    expect(await digest(root)).toEqual(before);
    const traces = await readTraces(root);
    expect(traces.map((t) => `${t.action}:${t.outcome}`)).toEqual(['approve:unsupported', 'migrate:unsupported']);
    expect(traces[0]).toMatchObject({ client: { name: 'NoFormsClient' }, code: 'ELICITATION_UNSUPPORTED' });
  });
});

describe('migrate refuses, changing nothing', () => {
  async function approved(extra: ElicitScript[] = [], config: Record<string, number> = {}): Promise<{ hh: Harness; before: Record<string, string> }> {
    const hh = await start([YES_APPROVE, ...extra], config);
    await hh.call('onboarding_propose', { narrate: false });
    expect((await hh.call('onboarding_approve', {})).isError).toBeFalsy();
    return { hh, before: await digest(hh.root) };
  }

  it.each([
    ['decline', { action: 'decline' } as ElicitResult, 'declined'],
    ['cancel', { action: 'cancel' } as ElicitResult, 'cancelled'],
    ['only one box ticked', { action: 'accept', content: { confirmed: true, understood_risks: false } } as ElicitResult, 'declined'],
    ['accept without content', { action: 'accept' } as ElicitResult, 'declined'],
  ])('when the confirmation is %s', async (_n, answer, outcome) => {
    const { hh, before } = await approved([answer]);
    const r = await hh.call('onboarding_migrate', {});
    expect(r.isError).toBe(true);
    expect(await digest(hh.root)).toEqual(before);
    expect((await readTraces(hh.root)).at(-1)).toMatchObject({ action: 'migrate', outcome });
    await expect(fsp.readdir(path.join(hh.root, '.copilot-state', 'backups'))).rejects.toThrow();
  });

  it('when the approval expired (under the injected clock, no sleeping)', async () => {
    const ttl = 60_000;
    const t0 = Date.parse('2030-01-01T00:00:00.000Z');
    let t = t0;
    const hh = await harnesses.open({ root: exampleWorkspace(), caps: { elicitation: {} }, elicit: [YES_APPROVE, { action: 'decline' }], config: { approvalTtlMs: ttl, now: () => t } });
    await hh.call('onboarding_propose', { narrate: false });
    const a = await hh.call('onboarding_approve', {});
    expect(a.isError, textOf(a)).toBeFalsy();
    expect(sc(a).expiresAt).toBe(new Date(t0 + ttl).toISOString());
    expect((await readTraces(hh.root)).at(-1)).toMatchObject({ action: 'approve', timestamp: new Date(t0).toISOString() });
    const before = await digest(hh.root);
    // One millisecond before the end it is still valid: the confirmation form is shown (and declined).
    t = t0 + ttl - 1;
    expect(textOf(await hh.call('onboarding_migrate', {}))).toMatch(/NOT_CONFIRMED/);
    expect(hh.shown).toHaveLength(2);
    t = t0 + ttl;
    const r = await hh.call('onboarding_migrate', {});
    expect(textOf(r)).toMatch(/APPROVAL_EXPIRED/);
    expect(hh.shown).toHaveLength(2); // never asked to confirm
    expect(await digest(hh.root)).toEqual(before);
  });

  it('when the approval is for another plan', async () => {
    const { hh, before } = await approved();
    const p2 = await hh.call('onboarding_propose', { narrate: false, overrides: [{ section: 'Docker', keepRepoWide: true }] });
    expect(p2.isError, textOf(p2)).toBeFalsy();
    const r = await hh.call('onboarding_migrate', {});
    expect(textOf(r)).toMatch(/NOT_APPROVED/);
    expect(await digest(hh.root)).toEqual(before);
  });

  it('when a source changed since the plan (stale plan)', async () => {
    const { hh } = await approved();
    const file = path.join(hh.root, '.github/copilot-instructions.md');
    await fsp.appendFile(file, '\n- one more rule\n');
    const before = await digest(hh.root);
    const r = await hh.call('onboarding_migrate', {});
    expect(textOf(r)).toMatch(/PLAN_STALE.*propose again/s);
    expect(await digest(hh.root)).toEqual(before);
  });

  it('when onboarding.json was edited to fake an approval', async () => {
    const hh = await start([]);
    const p = sc(await hh.call('onboarding_propose', { narrate: false }));
    const statePath = path.join(hh.root, '.copilot-state', 'onboarding.json');
    const state = JSON.parse(await fsp.readFile(statePath, 'utf8'));
    state.status = 'approved';
    state.approval = {
      planId: p.planId,
      planSha256: p.sha256,
      approvedAt: new Date().toISOString(),
      expiresAt: new Date(Date.now() + 3600_000).toISOString(),
      trace: 'made-up.json',
      traceSeq: 1,
      traceSha256: 'a'.repeat(64),
      comment: null,
    };
    await fsp.writeFile(statePath, JSON.stringify(state));
    const before = await digest(hh.root);
    const r = await hh.call('onboarding_migrate', {});
    expect(textOf(r)).toMatch(/NOT_APPROVED/);
    expect(hh.shown).toHaveLength(0);
    expect(await digest(hh.root)).toEqual(before);
  });

  it('when the approval trace was tampered with', async () => {
    const { hh, before } = await approved();
    const dir = path.join(hh.root, '.copilot-state', 'elicitation-traces');
    const [f] = (await fsp.readdir(dir)).filter((x) => x.endsWith('.json') && !x.startsWith('.'));
    const rec = JSON.parse(await fsp.readFile(path.join(dir, f!), 'utf8'));
    rec.message = 'something else';
    await fsp.writeFile(path.join(dir, f!), JSON.stringify(rec));
    const r = await hh.call('onboarding_migrate', {});
    expect(textOf(r)).toMatch(/TRACE_CHAIN_BROKEN/);
    expect(await digest(hh.root)).toEqual(before);
  });

  it('an approval is used once', async () => {
    const hh = await start([YES_APPROVE, YES_MIGRATE, YES_ROLLBACK]);
    await hh.call('onboarding_propose', { narrate: false });
    await hh.call('onboarding_approve', {});
    expect((await hh.call('onboarding_migrate', {})).isError).toBeFalsy();
    expect((await hh.call('onboarding_rollback', {})).isError).toBeFalsy();
    const before = await digest(hh.root);
    // The same workspace gives the same plan (same SHA-256), but its approval was used.
    await hh.call('onboarding_propose', { narrate: false });
    const r = await hh.call('onboarding_migrate', {});
    expect(textOf(r)).toMatch(/already used/);
    expect(await digest(hh.root)).toEqual(before);
  });
});

describe('rollback', () => {
  async function migrated(extra: ElicitScript[]): Promise<{ hh: Harness; original: Record<string, string> }> {
    const hh = await start([YES_APPROVE, YES_MIGRATE, ...extra]);
    const original = await digest(hh.root);
    await hh.call('onboarding_propose', { narrate: false });
    await hh.call('onboarding_approve', {});
    const m = await hh.call('onboarding_migrate', {});
    expect(m.isError, textOf(m)).toBeFalsy();
    return { hh, original };
  }

  it('lists files edited since the migration before asking, then restores byte for byte', async () => {
    const { hh, original } = await migrated([YES_ROLLBACK]);
    const created = (await fsp.readdir(path.join(hh.root, '.github/instructions'))).sort();
    const edited = `.github/instructions/${created[0]}`;
    await fsp.appendFile(path.join(hh.root, edited), '\nlocal edit\n');
    const r = await hh.call('onboarding_rollback', {});
    expect(r.isError, textOf(r)).toBeFalsy();
    const msg = hh.shown.at(-1)!.message;
    expect(msg).toContain(edited);
    expect(msg).toMatch(/saved to `\.copilot-state\/backups\/[^`]+\.edited\/` first/);
    expect(sc(r).editedSinceMigration).toEqual([edited]);
    expect(await digest(hh.root)).toEqual(original);
  });

  it.each([
    ['decline', { action: 'decline' } as ElicitResult, 'declined'],
    ['confirmed: false', { action: 'accept', content: { confirmed: false } } as ElicitResult, 'declined'],
  ])('does nothing when the answer is %s', async (_n, answer, outcome) => {
    const { hh } = await migrated([answer]);
    const before = await digest(hh.root);
    const r = await hh.call('onboarding_rollback', {});
    expect(r.isError).toBe(true);
    expect(await digest(hh.root)).toEqual(before);
    expect((await readTraces(hh.root)).at(-1)).toMatchObject({ action: 'rollback', outcome });
  });

  it('refuses when the backup manifest is replaced while the form is open, even by one that still matches the plan', async () => {
    let root = '';
    let manifestAbs = '';
    const replaceInsideForm: ElicitScript = async () => {
      // Still a valid backup of the same plan (re-sealed with the public formula), just not the one the question named.
      const m = JSON.parse(await fsp.readFile(manifestAbs, 'utf8')) as Record<string, unknown>;
      m.createdAt = '2000-01-01T00:00:00.000Z';
      delete m.sha256;
      m.sha256 = sha256Hex(canonicalJson(m));
      await fsp.writeFile(manifestAbs, JSON.stringify(m));
      return YES_ROLLBACK;
    };
    const { hh } = await migrated([replaceInsideForm]);
    root = hh.root;
    const backups = path.join(root, '.copilot-state/backups');
    manifestAbs = path.join(backups, (await fsp.readdir(backups)).find((f) => f.endsWith('.manifest.json'))!);
    const after = await digest(root);
    const r = await hh.call('onboarding_rollback', {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Not rolled back: the backup of migration \S+ changed while the question was open/);
    expect(await digest(root)).toEqual(after);
  });

  it('refuses when a migrated file is edited while the form is open (re-checked before acting); the next form lists the edit', async () => {
    let created = '';
    const editInsideForm: ElicitScript = async (p) => {
      expect(p.message).not.toMatch(/WARNING/);
      await fsp.appendFile(path.join(hh.root, created), '\nedited meanwhile\n');
      return YES_ROLLBACK;
    };
    const { hh } = await migrated([editInsideForm, { action: 'decline' }]);
    created = `.github/instructions/${(await fsp.readdir(path.join(hh.root, '.github/instructions'))).sort()[0]}`;
    const after = await digest(hh.root);
    const r = await hh.call('onboarding_rollback', {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(`Not rolled back: ${created} changed while the question was open`);
    expect(sc(r)).toMatchObject({ rolledBack: false, editedSinceMigration: [created], outcome: 'approved' });
    // The edit survives and nothing else moved.
    const now = await digest(hh.root);
    expect(Object.keys(now)).toEqual(Object.keys(after));
    expect(now[created]).not.toBe(after[created]);
    expect(await fsp.readFile(path.join(hh.root, created), 'utf8')).toMatch(/edited meanwhile\n$/);
    // Asked again: this form lists the edit that would be lost.
    const again = await hh.call('onboarding_rollback', {});
    expect(again.isError).toBe(true);
    expect(hh.shown.at(-1)!.message).toContain(created);
    expect(hh.shown.at(-1)!.message).toMatch(/edited since the migration; it is saved to/);
    expect(await digest(hh.root)).toEqual(now);
    expect((await readTraces(hh.root)).slice(-2).map((t) => `${t.action}:${t.outcome}`)).toEqual(['rollback:approved', 'rollback:declined']);
    expect((await verifyChain(hh.root, 'elicitation')).ok).toBe(true);
  });

  it('refuses when the migration was rolled back elsewhere while the form was open (re-resolved before acting)', async () => {
    let root = '';
    const rollBackMeanwhile: ElicitScript = async () => {
      // The operator's terminal undoes the same migration while the form is open.
      await commitRollback(root, await prepareRollback(root, undefined));
      return YES_ROLLBACK;
    };
    const { hh, original } = await migrated([rollBackMeanwhile]);
    root = hh.root;
    const r = await hh.call('onboarding_rollback', {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/NO_MIGRATION/);
    expect(await digest(hh.root)).toEqual(original);
    expect((await readTraces(hh.root)).at(-1)).toMatchObject({ action: 'rollback', outcome: 'approved' });
  });

  it('refuses with a corrupted backup before asking, touching nothing', async () => {
    const { hh } = await migrated([]);
    const dir = path.join(hh.root, '.copilot-state', 'backups');
    const tgz = (await fsp.readdir(dir)).find((f) => f.endsWith('.tar.gz'))!;
    const buf = await fsp.readFile(path.join(dir, tgz));
    await fsp.writeFile(path.join(dir, tgz), buf.subarray(0, Math.floor(buf.length / 2)));
    const before = await digest(hh.root);
    const r = await hh.call('onboarding_rollback', {});
    expect(textOf(r)).toMatch(/BACKUP_CORRUPT/);
    expect(hh.shown).toHaveLength(2);
    expect(await digest(hh.root)).toEqual(before);
  });
});
