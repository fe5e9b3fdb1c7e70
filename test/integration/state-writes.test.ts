/**
 * Each write into the state folder re-checks it first (io/workspace assertStateWrite): a
 * `.copilot-state` (or one of its folders) swapped for a symlink out of the workspace, as can
 * happen while a form is open, is refused before a byte is written there. One case per call
 * site, calling that writer alone, so removing any one re-check fails its case
 * (scripts/mutation-check.mjs). The writes of io/backup.ts have their own tests.
 */
import { mkdirSync, mkdtempSync, renameSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadState, saveState } from '../../server/src/io/state.js';
import { savePlan } from '../../server/src/io/plans.js';
import { writeJournal } from '../../server/src/io/journal.js';
import { acquireLock } from '../../server/src/io/lock.js';
import { stateDir } from '../../server/src/io/layout.js';
import { JOURNAL_FORMAT } from '../../server/src/schemas/journal.js';
import { exampleWorkspace, digest } from '../helpers/workspace.js';
import { sealPlan, sha } from '../helpers/fixtures.js';
import { appendCliGateTrace } from '../helpers/traces.js';

/** A workspace whose state folder (or `sub` inside it) now points outside; what is there before the write. */
async function swapped(sub: string) {
  const root = exampleWorkspace();
  const state = await loadState(root);
  await saveState(root, state); // .copilot-state with onboarding.json and workspace-id
  const target = path.join(stateDir(root), sub);
  mkdirSync(target, { recursive: true });
  const moved = path.join(mkdtempSync(path.join(os.tmpdir(), 'co-outside-')), 'moved');
  renameSync(target, moved);
  symlinkSync(moved, target);
  return { root, state, moved, before: await digest(moved) };
}

async function refusedOutside(write: Promise<unknown>, moved: string, before: Record<string, string>) {
  await expect(write).rejects.toThrow(/resolves outside/);
  expect(await digest(moved)).toEqual(before);
}

describe('every state-folder writer re-checks the folder before it writes', () => {
  it('onboarding.json (io/state saveState)', async () => {
    const { root, state, moved, before } = await swapped('');
    await refusedOutside(saveState(root, { ...state, status: 'proposed' }), moved, before);
  });

  it('a plan (io/plans savePlan)', async () => {
    const { root, moved, before } = await swapped('plans');
    const plan = sealPlan([{ op: 'create', path: '.github/instructions/a.instructions.md', size: 1, sha256: sha('a'), content: 'a', previousSha256: null }]);
    await refusedOutside(savePlan(root, plan), moved, before);
  });

  it('the journal (io/journal writeJournal)', async () => {
    const { root, moved, before } = await swapped('');
    const at = new Date().toISOString();
    const journal = { format: JOURNAL_FORMAT, kind: 'migrate', phase: 'backing-up', migrationId: '20261125T120000Z-0123abcd-abcdef', planId: '0123abcd0123abcd', pid: process.pid, startedAt: at, updatedAt: at, ops: [], createdDirs: [] } as const;
    await refusedOutside(writeJournal(root, { ...journal, ops: [], createdDirs: [] }), moved, before);
  });

  it('the workspace lock (io/lock acquireLock)', async () => {
    const { root, moved, before } = await swapped('');
    await refusedOutside(acquireLock(root, { owner: 'test' }), moved, before);
  });

  it('a gate trace (app/gate-trace appendGateTrace)', async () => {
    const { root, moved, before } = await swapped('elicitation-traces');
    await refusedOutside(appendCliGateTrace(root), moved, before);
  });
});
