/**
 * Symlinks: a source or folder that leads outside the workspace is refused; a symlink that stays
 * inside is allowed. Whatever happens, nothing outside the workspace is read into a plan or
 * written, and the human is never asked to approve a plan that migrate can never apply.
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textOf } from '../helpers/harness.js';
import { YES_APPROVE, YES_MIGRATE, YES_ROLLBACK, cleanup, expectOk, expectSafe, guard, open, sandbox, sc, wsDigest, write } from '../helpers/hostile.js';

afterEach(cleanup);

describe('symlinks', () => {
  it('a symlink inside the workspace is allowed: whatever propose plans, migrate can apply and rollback restores', async () => {
    const sb = sandbox();
    write(sb.root, 'docs/copilot.md', '# Project\n\nBe concise.\n\n## TypeScript\n\n- strict mode in `src/**/*.ts`\n');
    write(sb.root, 'src/a.ts', 'export const a = 1;\n');
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
    sb.outsideBefore = (await import('../helpers/hostile.js')).treeDigestSync(sb.outside);
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
});
