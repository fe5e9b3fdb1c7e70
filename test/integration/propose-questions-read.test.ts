/**
 * Issue 22, costs that do not grow with history: propose reads the person's newest answer to the
 * shared-rules question newest first and stops there (io/questions.ts newestTracedAnswer), and only
 * the files named for that question. Question files are read through io/workspace.ts
 * readRegularFileSync, which this test wraps to count the files read; the rest of propose runs
 * for real on a temp workspace. The names found are kept in .copilot-state/questions-index.json
 * with the folder's stamp once the folder has been left alone for 2 s (backdated here).
 */
import { copyFileSync, existsSync, readFileSync, renameSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { propose } from '../../server/src/app/propose.js';
import { answerQuestion } from '../../server/src/testing/confirm.js';
import { SHARED_RULES_QUESTION } from '../../server/src/core/agents/shared-rules.js';
import { saveQuestion } from '../../server/src/io/questions.js';
import { IO_CONCURRENCY } from '../../server/src/io/workspace.js';
import { removeWorkspace, tempWorkspace } from '../helpers/harness.js';
import { writeFileIn } from '../helpers/fixtures.js';

const reads = vi.hoisted(() => [] as string[]);
vi.mock('../../server/src/io/workspace.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../server/src/io/workspace.js')>();
  return {
    ...real,
    readRegularFileSync: ((file: string, opts?: unknown) => {
      reads.push(file);
      return (real.readRegularFileSync as (f: string, o?: unknown) => unknown)(file, opts);
    }) as typeof real.readRegularFileSync,
  };
});

const roots: string[] = [];
afterEach(() => {
  for (const r of roots.splice(0)) removeWorkspace(r);
});

const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();

describe('propose and the saved questions', () => {
  it('reads only the newest question files, down to the newest answer to the shared-rules question', async () => {
    const root = tempWorkspace('co-qread-');
    roots.push(root);
    await writeFileIn(root, '.github/copilot-instructions.md', '# Repo\n\n- Use pnpm for every install in this repository.\n');
    await writeFileIn(root, 'CLAUDE.md', '# Claude\n\n- Use pnpm for every install in this repository.\n');
    const OLDER = 60;
    const saved: string[] = [];
    for (let i = 0; i < OLDER; i++) {
      // An older answer that says otherwise: only the newest answer counts.
      const q = i === OLDER - 1 ? { question: SHARED_RULES_QUESTION, answer: 'both, maybe' } : { question: `Which scope for topic ${i}?`, answer: 'src/**' };
      saved.push(await saveQuestion(root, { timestamp: at(i), ...q, trace: '' }));
    }
    // The answer a person gave through question_ask: its trace records it (a saved file alone is ignored).
    const { saved: answer } = await answerQuestion(root, SHARED_RULES_QUESTION, 'keep', at(OLDER));
    for (let i = 1; i <= 3; i++) await saveQuestion(root, { timestamp: at(OLDER + i), question: `Which scope for later topic ${i}?`, answer: 'docs/**', trace: '' });

    reads.length = 0;
    const { sharedRules } = await propose(root, undefined);
    expect(sharedRules.choice).toBe('keep');
    const questionReads = reads.filter((f) => f.includes(`${path.sep}questions${path.sep}`)).map((f) => path.basename(f));
    expect(questionReads).toContain(path.basename(answer));
    // One batch at most (the 3 newer files, the answer, and older files read alongside them), never all 64.
    expect(questionReads.length).toBeLessThanOrEqual(IO_CONCURRENCY);
    // The oldest files are never read.
    for (const f of saved.slice(0, OLDER - IO_CONCURRENCY + 4)) expect(questionReads).not.toContain(path.basename(f));
  });

  it('with no answer saved, reads no question file; a file named without its question (an earlier version) is still read and found', async () => {
    const root = tempWorkspace('co-qread-');
    roots.push(root);
    await writeFileIn(root, '.github/copilot-instructions.md', '# Repo\n\n- Use pnpm for every install in this repository.\n');
    await writeFileIn(root, 'CLAUDE.md', '# Claude\n\n- Use pnpm for every install in this repository.\n');
    for (let i = 0; i < 40; i++) await saveQuestion(root, { timestamp: at(i), question: `Which scope for topic ${i}?`, answer: 'src/**', trace: '' });
    const qpath = (f: string) => f.includes(`${path.sep}questions${path.sep}`);

    reads.length = 0;
    expect((await propose(root, undefined)).sharedRules.choice).toBeNull();
    expect(reads.filter(qpath)).toEqual([]);

    // An answer saved by an earlier version: no question in its name.
    const { saved } = await answerQuestion(root, SHARED_RULES_QUESTION, 'keep', at(40));
    const legacy = saved.replace(/q[0-9a-f]{8}_question\.yaml$/, '_question.yaml');
    expect(legacy).not.toBe(saved);
    renameSync(path.join(root, saved), path.join(root, legacy));
    reads.length = 0;
    const { sharedRules } = await propose(root, undefined);
    expect(sharedRules.choice).toBe('keep');
    expect(reads.filter(qpath).map((f) => path.basename(f))).toEqual([path.basename(legacy)]);
  });
});

describe('the index of question file names', () => {
  const INDEX = '.copilot-state/questions-index.json';
  /** The questions folder as after a minute left alone (its mtime backdated). */
  const leaveAlone = (root: string) => {
    const t = new Date(Date.now() - 60_000);
    utimesSync(path.join(root, '.copilot-state/questions'), t, t);
  };
  async function workspace(): Promise<string> {
    const root = tempWorkspace('co-qindex-');
    roots.push(root);
    await writeFileIn(root, '.github/copilot-instructions.md', '# Repo\n\n- Use pnpm for every install in this repository.\n');
    await writeFileIn(root, 'CLAUDE.md', '# Claude\n\n- Use pnpm for every install in this repository.\n');
    for (let i = 0; i < 5; i++) await saveQuestion(root, { timestamp: at(i), question: `Which scope for topic ${i}?`, answer: 'src/**', trace: '' });
    return root;
  }

  it('a folder changed in the last 2 s is listed but not indexed (a change in the same mtime step would go unseen)', async () => {
    const root = await workspace();
    expect((await propose(root, undefined)).sharedRules.choice).toBeNull();
    expect(existsSync(path.join(root, INDEX))).toBe(false);
    leaveAlone(root);
    expect((await propose(root, undefined)).sharedRules.choice).toBeNull();
    expect(JSON.parse(readFileSync(path.join(root, INDEX), 'utf8')).names).toEqual([]);
  });

  it('an answer saved after the index was written is found: the folder changed, so it is listed again', async () => {
    const root = await workspace();
    leaveAlone(root);
    expect((await propose(root, undefined)).sharedRules.choice).toBeNull();
    expect(existsSync(path.join(root, INDEX))).toBe(true);
    await answerQuestion(root, SHARED_RULES_QUESTION, 'keep', at(10));
    expect((await propose(root, undefined)).sharedRules.choice).toBe('keep');
  });

  it('an edited index is a list of names only: each is read and checked as a listed file, and a name outside the folder is never read', async () => {
    const root = await workspace();
    const { saved } = await answerQuestion(root, SHARED_RULES_QUESTION, 'keep', at(10));
    leaveAlone(root);
    expect((await propose(root, undefined)).sharedRules.choice).toBe('keep');
    const index = JSON.parse(readFileSync(path.join(root, INDEX), 'utf8'));
    expect(index.names).toEqual([path.basename(saved)]);
    // A copy of that answer beside the folder, named in the index through `..`; the answer itself left out.
    const outside = `../${path.basename(saved)}`;
    copyFileSync(path.join(root, saved), path.join(root, '.copilot-state', path.basename(saved)));
    writeFileSync(path.join(root, INDEX), JSON.stringify({ ...index, names: [outside] }));
    reads.length = 0;
    const { sharedRules } = await propose(root, undefined);
    // Leaving a name out hides that answer, as deleting its file would; nothing outside the folder was read.
    expect(sharedRules.choice).toBeNull();
    expect(sharedRules.ignored.count).toBe(0);
    expect(reads.filter((f) => path.basename(f) === path.basename(saved))).toEqual([]);
  });
});
