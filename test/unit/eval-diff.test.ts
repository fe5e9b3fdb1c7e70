/**
 * bench/eval-diff.mjs compares two builds on the same cases: which matches one build has and the
 * other has not, and how many files each writes (docs/evaluation.md, "Measuring a rule").
 */
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ESM script of the bench, without types.
import { diffScores } from '../../bench/eval-diff.mjs';

const hit = (human: string, proposalApplyTo: string) => ({ human, proposalApplyTo });
const scored = (name: string, hits: ReturnType<typeof hit>[], proposalUnits: number) => ({ name, hits, proposalUnits });

describe('diffScores', () => {
  it('lists the cases whose matches or written files changed, with what was lost and gained, and the totals', () => {
    const before = [scored('a', [hit('x.instructions.md', 'src/**')], 2), scored('b', [hit('y.instructions.md', '**/*.py')], 1), scored('c', [], 0)];
    const after = [scored('a', [hit('x.instructions.md', 'src/**/*.ts')], 2), scored('b', [hit('y.instructions.md', '**/*.py')], 1), scored('c', [], 1)];
    const d = diffScores(before, after);
    expect(d.cases).toEqual([
      { name: 'a', hits: [1, 1], files: [2, 2], lost: ['x.instructions.md <- src/**'], gained: ['x.instructions.md <- src/**/*.ts'] },
      { name: 'c', hits: [0, 0], files: [0, 1], lost: [], gained: [] },
    ]);
    expect(d.total).toEqual({ before: { hits: 2, files: 3 }, after: { hits: 2, files: 4 } });
  });

  it('refuses lists of different cases', () => {
    expect(() => diffScores([scored('a', [], 0)], [scored('b', [], 0)])).toThrow(/same cases/);
    expect(() => diffScores([scored('a', [], 0)], [])).toThrow(/same cases/);
  });
});
