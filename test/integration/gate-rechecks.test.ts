/**
 * What the gates check again after re-deriving the plan, each with a case only that check
 * catches (scripts/mutation-check.mjs removes each one and expects these tests to fail):
 *
 * - migrate, under the workspace lock and before the question: the snapshot rule (a new
 *   instruction file the plan never read) and the check on disk (something appeared where the
 *   plan creates a file, which the snapshot does not read). The change is made right after the
 *   gate re-derived the plan (its onPlan hook), the window these checks close.
 * - approve, after the human answered: no source changed while the form was open.
 */
import { mkdirSync, promises as fsp, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { YES_APPROVE, harnessesPerTest } from '../helpers/harness.js';
import { exampleWorkspace, readTraces } from '../helpers/workspace.js';
import { migrateGate } from '../../server/src/app/migrate.js';
import { approveGate } from '../../server/src/app/approve.js';
import { loadState } from '../../server/src/io/state.js';
import type { Plan } from '../../server/src/schemas/plan.js';

const harnesses = harnessesPerTest();
const TTL = 3_600_000;

/** An example workspace with a proposed plan, approved when `approve`. */
async function workspace(approve: boolean): Promise<string> {
  const root = exampleWorkspace();
  const h = await harnesses.open({ root, caps: { elicitation: {} }, elicit: [YES_APPROVE] });
  await h.call('onboarding_propose', { narrate: false });
  if (approve) expect((await h.call('onboarding_approve', {})).isError).toBeFalsy();
  await h.close();
  return root;
}

/** A confirmed answer, with a trace reference as a channel returns it. */
const yes = () => ({ confirmed: true, comment: null, trace: { file: 'x.json', path: 'x.json', seq: 99, sha256: '0'.repeat(64), timestamp: new Date().toISOString() } });

/** Run the migrate gate, changing the workspace with `change` right after it re-derived the plan. */
async function migrateAfter(root: string, change: (plan: Plan) => void) {
  let asked = 0;
  const ask = async () => {
    asked++;
    return yes();
  };
  const err = await migrateGate(root, undefined, ask, { ttlMs: TTL, now: () => Date.now(), onPlan: change }).then(
    () => null,
    (e: unknown) => e,
  );
  return { err, asked };
}

describe('migrate gate: stale after re-derivation, refused before the question', () => {
  it('a new instruction file the plan never read (the snapshot check)', async () => {
    const root = await workspace(true);
    const { err, asked } = await migrateAfter(root, () => {
      mkdirSync(path.join(root, '.github/instructions'), { recursive: true });
      writeFileSync(path.join(root, '.github/instructions/late.instructions.md'), '---\napplyTo: "**/*.sql"\n---\n# Late\n\nWritten after the plan.\n');
    });
    expect(err).toMatchObject({ code: 'PLAN_STALE', message: expect.stringContaining('late.instructions.md (new)') });
    expect(asked).toBe(0);
    expect((await readTraces(root)).map((t) => `${t.action} ${t.outcome}`)).toEqual(['approve approved']);
    expect((await loadState(root)).migrations).toEqual([]);
  });

  it('a folder where the plan creates a file (the check on disk)', async () => {
    const root = await workspace(true);
    let created = '';
    const { err, asked } = await migrateAfter(root, (plan) => {
      created = plan.operations.find((o) => o.op === 'create')!.path;
      mkdirSync(path.join(root, created), { recursive: true });
    });
    expect(err).toMatchObject({ code: 'PLAN_STALE', message: expect.stringContaining(created) });
    expect(asked).toBe(0);
    expect((await loadState(root)).migrations).toEqual([]);
  });
});

describe('approve gate: re-checked after the answer', () => {
  it('a source edited while the form was open: refused PLAN_STALE, no approval recorded', async () => {
    const root = await workspace(false);
    const err = await approveGate(
      root,
      undefined,
      async () => {
        await fsp.appendFile(path.join(root, '.github/copilot-instructions.md'), '\nEdited while the form was open.\n');
        return yes();
      },
      { ttlMs: TTL },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'PLAN_STALE', message: expect.stringContaining('copilot-instructions.md') });
    const state = await loadState(root);
    expect(state.approval).toBeNull();
    expect(state.status).toBe('proposed');
  });

  it('an approval records the expiry of its trace: the answer time plus the TTL', async () => {
    const root = await workspace(false);
    const answer = yes();
    const r = await approveGate(root, undefined, async () => answer, { ttlMs: TTL });
    expect(r.kind).toBe('approved');
    const state = await loadState(root);
    expect(state.approval).toMatchObject({ approvedAt: answer.trace.timestamp, expiresAt: new Date(Date.parse(answer.trace.timestamp) + TTL).toISOString(), traceSeq: 99 });
  });
});
