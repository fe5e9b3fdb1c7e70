/**
 * Gate edges: a migrate refused after the human confirmed keeps the approval (what can be known
 * before the form refuses before it: BUSY, a destination that appeared), and rollback accepts
 * only the newest migration not rolled back, in the MCP tool and the terminal command alike.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { YES_APPROVE, YES_MIGRATE, YES_ROLLBACK, harnessesPerTest, textOf, type ElicitScript, type Harness } from '../helpers/harness.js';
import { digest, exampleWorkspace, readTraces } from '../helpers/workspace.js';
import { acquireLock } from '../../server/src/io/lock.js';
import { loadState, saveState } from '../../server/src/io/state.js';
import { prepareRollback } from '../../server/src/app/rollback.js';
import { runCli } from '../../server/src/cli/program.js';

const MONO = '.github/copilot-instructions.md';

const harnesses = harnessesPerTest();
const sc = (r: { structuredContent?: unknown }) => r.structuredContent as Record<string, unknown>;

async function approved(elicit: ElicitScript[]): Promise<{ hh: Harness; plan: Record<string, unknown> }> {
  const hh = await harnesses.open({ root: exampleWorkspace(), caps: { elicitation: {} }, elicit: [YES_APPROVE, ...elicit] });
  const plan = sc(await hh.call('onboarding_propose', { narrate: false }));
  const a = await hh.call('onboarding_approve', {});
  expect(a.isError, textOf(a)).toBeFalsy();
  return { hh, plan };
}

describe('a migrate refused after the human confirmed does not spend the approval', () => {
  it('a source edited while the form was open: refused, nothing changed; once undone, the same approval migrates', async () => {
    let original: Buffer | null = null;
    const { hh } = await approved([
      async () => {
        original = await fsp.readFile(path.join(hh.root, MONO));
        await fsp.appendFile(path.join(hh.root, MONO), '\nedited while the form was open\n');
        return YES_MIGRATE;
      },
      YES_MIGRATE,
    ]);
    const before = await digest(hh.root);
    const m1 = await hh.call('onboarding_migrate', {});
    expect(m1.isError).toBe(true);
    expect(textOf(m1)).toContain('PLAN_STALE');
    expect(Object.keys(await digest(hh.root))).toEqual(Object.keys(before));
    await fsp.writeFile(path.join(hh.root, MONO), original!);
    const m2 = await hh.call('onboarding_migrate', {});
    expect(m2.isError, textOf(m2)).toBeFalsy();
    expect(sc(m2)).toMatchObject({ migrated: true });
    // Used now: a third migrate is refused.
    const m3 = await hh.call('onboarding_migrate', {});
    expect(textOf(m3)).toMatch(/NOT_APPROVED|PLAN_STALE/);
  });

  it('BUSY is refused before the form is shown; the approval stays valid', async () => {
    const { hh } = await approved([YES_MIGRATE]);
    const lock = await acquireLock(hh.root, { owner: 'someone else' });
    const before = await digest(hh.root);
    try {
      const m = await hh.call('onboarding_migrate', {});
      expect(textOf(m)).toContain('BUSY');
    } finally {
      await lock.release();
    }
    expect(hh.shown).toHaveLength(1); // only the approve form
    expect(await digest(hh.root)).toEqual(before);
    const m = await hh.call('onboarding_migrate', {});
    expect(m.isError, textOf(m)).toBeFalsy();
  });

  it('a destination that appeared is refused before the form; once removed, the same approval migrates', async () => {
    const { hh, plan } = await approved([YES_MIGRATE]);
    const create = (plan.operations as Array<{ op: string; path: string }>).find((o) => o.op === 'create')!;
    const abs = path.join(hh.root, create.path);
    await fsp.mkdir(path.dirname(abs), { recursive: true });
    await fsp.writeFile(abs, 'mine\n');
    const m1 = await hh.call('onboarding_migrate', {});
    expect(textOf(m1)).toContain('PLAN_STALE');
    expect(hh.shown).toHaveLength(1);
    expect(await fsp.readFile(abs, 'utf8')).toBe('mine\n');
    await fsp.rm(abs);
    const m2 = await hh.call('onboarding_migrate', {});
    expect(m2.isError, textOf(m2)).toBeFalsy();
    // The refusal before the form is traced (with its code); it does not spend the approval.
    expect((await readTraces(hh.root)).map((t) => `${t.action}:${t.outcome}`)).toEqual(['approve:approved', 'migrate:refused', 'migrate:approved']);
  });
});

async function cliRollback(root: string, id: string): Promise<{ code: number; out: string }> {
  let out = '';
  const stdout = new PassThrough();
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  const code = await runCli({ argv: ['node', 'copilot-onboarding', 'rollback', '-w', root, '--migration', id, '--yes', '--json'], cwd: root, env: {}, stdout, stderr: new PassThrough(), isTTY: false });
  return { code, out };
}

describe('rollback accepts only the newest migration not rolled back', () => {
  it('an id already rolled back is refused by the MCP tool and the CLI, with no form and nothing changed', async () => {
    const { hh } = await approved([YES_MIGRATE, YES_ROLLBACK, YES_APPROVE, YES_MIGRATE]);
    const first = sc(await hh.call('onboarding_migrate', {})).migrationId as string;
    expect((await hh.call('onboarding_rollback', {})).isError).toBeFalsy();
    expect((await hh.call('onboarding_propose', { narrate: false })).isError).toBeFalsy();
    expect((await hh.call('onboarding_approve', {})).isError).toBeFalsy();
    const second = sc(await hh.call('onboarding_migrate', {})).migrationId as string;
    expect(second).not.toBe(first);
    const migrated = await digest(hh.root);
    const shown = hh.shown.length;

    const r = await hh.call('onboarding_rollback', { migrationId: first });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain('NO_MIGRATION');
    expect(textOf(r)).toContain(second);
    expect(hh.shown).toHaveLength(shown);
    const c = await cliRollback(hh.root, first);
    expect(c.code).not.toBe(0);
    expect(JSON.parse(c.out)).toMatchObject({ ok: false, error: { code: 'NO_MIGRATION' } });
    expect(await digest(hh.root)).toEqual(migrated);
  });

  it('an older migration is refused while a newer one is live', async () => {
    const { hh } = await approved([YES_MIGRATE]);
    const m = sc(await hh.call('onboarding_migrate', {}));
    const state = await loadState(hh.root);
    const rec = state.migrations[0]!;
    // A newer live migration on top (as after a second migrate).
    state.migrations.push({ ...rec, migrationId: `${rec.migrationId}-newer` });
    await saveState(hh.root, state);
    await expect(prepareRollback(hh.root, m.migrationId as string)).rejects.toMatchObject({ code: 'NO_MIGRATION' });
  });
});
