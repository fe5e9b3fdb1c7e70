/**
 * Symlinks: a source or folder that leads outside the workspace is refused; a symlink that stays
 * inside is allowed. Whatever happens, nothing outside the workspace is read into a plan or
 * written, and the human is never asked to approve a plan that migrate can never apply.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textOf } from '../helpers/harness.js';
import {
  YES_APPROVE,
  YES_MIGRATE,
  YES_ROLLBACK,
  cleanup,
  expectOk,
  expectRefused,
  expectSafe,
  guard,
  open,
  sandbox,
  sc,
  treeDigestSync,
  wsDigest,
} from '../helpers/hostile.js';
import { put } from '../helpers/files.js';

afterEach(cleanup);

describe('symlinks', () => {
  it('a symlink inside the workspace is allowed: whatever propose plans, migrate can apply and rollback restores', async () => {
    const sb = sandbox();
    put(sb.root, 'docs/copilot.md', '# Project\n\nBe concise.\n\n## TypeScript\n\n- strict mode in `src/**/*.ts`\n');
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    mkdirSync(path.join(sb.root, '.github'));
    symlinkSync('../docs/copilot.md', path.join(sb.root, '.github/copilot-instructions.md'));
    const before = guard(sb);
    const h = await open(sb.root, { elicit: [YES_APPROVE, YES_MIGRATE, YES_ROLLBACK] });

    const a = expectOk(await h.call('onboarding_analyze', { narrate: false }));
    expect(a.refused).toEqual([]);
    expect((a.sources as Array<{ path: string }>).map((s) => s.path)).toEqual(['.github/copilot-instructions.md']);

    const p = await h.call('onboarding_propose', { narrate: false });
    if (p.isError) {
      // Acceptable: refuse up front, saying why, before anyone is asked.
      expect(textOf(p)).toMatch(/symlink/i);
      expect(h.shown).toHaveLength(0);
    } else if ((sc(p).operations as unknown[]).length > 0) {
      // Otherwise the approved plan must be executable: no "stale plan" dead end after the human said yes.
      expectOk(await h.call('onboarding_approve', {}));
      const m = await h.call('onboarding_migrate', {});
      expect(m.isError, `the human approved a plan that migrate refuses: ${textOf(m)}`).toBeFalsy();
      expectOk(await h.call('onboarding_rollback', {}));
      expect(wsDigest(sb.root)).toEqual(before.ws);
    }
    await expectSafe(h, sb, before);
  });

  it('.github/instructions is a symlink leading outside: propose does not plan files there (the human is never asked to approve an impossible plan)', async () => {
    const sb = sandbox({ example: true });
    mkdirSync(path.join(sb.outside, 'instr'));
    symlinkSync(path.join(sb.outside, 'instr'), path.join(sb.root, '.github/instructions'));
    sb.outsideBefore = treeDigestSync(sb.outside);
    const before = guard(sb);
    const h = await open(sb.root, { elicit: [YES_APPROVE, YES_MIGRATE] });
    const a = expectOk(await h.call('onboarding_analyze', { narrate: false }));
    expect(JSON.stringify(a.refused)).toMatch(/\.github\/instructions.*symlink that leads outside/);
    const p = await h.call('onboarding_propose', { narrate: false });
    if (!p.isError) {
      const creates = (sc(p).operations as Array<{ op: string; path: string }>).filter((o) => o.op === 'create');
      expect(creates, 'plan creates files inside a folder that leads outside the workspace').toEqual([]);
    } else {
      expect(textOf(p)).toMatch(/\.github\/instructions/);
    }
    const ap = await h.call('onboarding_approve', {});
    const m = await h.call('onboarding_migrate', {});
    expect(m.isError).toBe(true);
    void ap;
    await expectSafe(h, sb, before);
  });

  it('the source is a symlink leading outside: refused (listed by analyze), its text is never read into a result or plan, nobody is asked', async () => {
    const sb = sandbox();
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    mkdirSync(path.join(sb.root, '.github'));
    symlinkSync('../../outside/secret.md', path.join(sb.root, '.github/copilot-instructions.md'));
    const before = guard(sb);
    const h = await open(sb.root, { elicit: [YES_APPROVE] });
    const a = expectOk(await h.call('onboarding_analyze', { narrate: false }));
    expect(a.refused).toEqual([{ path: '.github/copilot-instructions.md', kind: 'copilot-repo', reason: 'it is a symlink that leads outside the workspace' }]);
    expect(a.sources).toEqual([]);
    const p = await h.call('onboarding_propose', { narrate: false });
    expect(expectRefused(p, 'SOURCE_REFUSED')).toMatch(/copilot-instructions\.md.*symlink that leads outside/);
    for (const r of [a, p]) expect(JSON.stringify(r)).not.toContain('never read, never written');
    expectRefused(await h.call('onboarding_approve', {}), 'PLAN_NOT_FOUND');
    expect(h.shown).toHaveLength(0);
    await expectSafe(h, sb, before);
  });

  it('.github itself is a symlink leading outside: every source under it is refused, nothing is written through it', async () => {
    const sb = sandbox();
    put(sb.outside, 'gh/copilot-instructions.md', '# Outside\n\n## TypeScript\n\n- strict in `src/**/*.ts`\n');
    put(sb.outside, 'gh/instructions/x.instructions.md', '---\napplyTo: "**"\n---\n\nOutside.\n');
    sb.outsideBefore = treeDigestSync(sb.outside);
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    symlinkSync(path.join(sb.outside, 'gh'), path.join(sb.root, '.github'));
    const before = guard(sb);
    const h = await open(sb.root, { elicit: [YES_APPROVE, YES_MIGRATE] });
    const a = expectOk(await h.call('onboarding_analyze', { narrate: false }));
    const refused = a.refused as Array<{ path: string; reason: string }>;
    expect(refused.map((r) => r.path).sort()).toEqual(['.github/copilot-instructions.md', '.github/instructions']);
    for (const r of refused) expect(r.reason).toBe('.github is a symlink that leads outside the workspace');
    expect(a.sources).toEqual([]);
    expect(expectRefused(await h.call('onboarding_propose', { narrate: false }), 'SOURCE_REFUSED')).toMatch(/\.github is a symlink/);
    expectRefused(await h.call('onboarding_approve', {}), 'PLAN_NOT_FOUND');
    expectRefused(await h.call('onboarding_migrate', {}), 'PLAN_NOT_FOUND');
    expect(h.shown).toHaveLength(0);
    await expectSafe(h, sb, before);
  });

  it('symlink loops (a file linked to itself, a <-> b, a folder linked to its parent): refused or skipped, analyze terminates, nothing changes', async () => {
    const sb = sandbox();
    put(sb.root, 'src/a.ts', 'export const a = 1;\n');
    mkdirSync(path.join(sb.root, '.github/instructions'), { recursive: true });
    symlinkSync('copilot-instructions.md', path.join(sb.root, '.github/copilot-instructions.md'));
    symlinkSync('b.instructions.md', path.join(sb.root, '.github/instructions/a.instructions.md'));
    symlinkSync('a.instructions.md', path.join(sb.root, '.github/instructions/b.instructions.md'));
    symlinkSync('..', path.join(sb.root, '.github/instructions/up'));
    const before = guard(sb);
    const h = await open(sb.root, { elicit: [YES_APPROVE] });
    const a = expectOk(await h.call('onboarding_analyze', { narrate: false }));
    const refused = a.refused as Array<{ path: string; reason: string }>;
    expect(refused).toEqual([
      { path: '.github/copilot-instructions.md', kind: 'copilot-repo', reason: 'it is a symlink loop' },
      { path: '.github/instructions/a.instructions.md', kind: 'copilot-path', reason: 'it is a symlink loop' },
      { path: '.github/instructions/b.instructions.md', kind: 'copilot-path', reason: 'it is a symlink loop' },
    ]);
    expect(expectRefused(await h.call('onboarding_propose', { narrate: false }), 'SOURCE_REFUSED')).toMatch(/symlink loop/);
    expect(h.shown).toHaveLength(0);
    await expectSafe(h, sb, before);
  });
});
