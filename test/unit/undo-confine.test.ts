/**
 * The pure halves of the undo path's guards: the one containment test (io/workspace isWithin)
 * and the comparison of a backup manifest or journal with the plan it names
 * (core/confine recordMismatch).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordMismatch } from '../../server/src/core/confine.js';
import { isWithin } from '../../server/src/io/workspace.js';
import type { Operation } from '../../server/src/schemas/plan.js';
import { sealPlan, sha } from '../helpers/fixtures.js';

describe('isWithin: the one containment test', () => {
  const root = path.resolve('/ws/repo');
  it.each([
    [root, true],
    [path.join(root, 'a', 'b'), true],
    [path.join(root, '..foo'), true],
    [path.join(root, '..'), false],
    [path.resolve('/ws/repo2'), false],
    [path.resolve('/ws'), false],
    [path.resolve('/etc/passwd'), false],
  ])('%s inside %s: %s', (real, inside) => {
    expect(isWithin(root, real as string)).toBe(inside);
  });
});

describe('recordMismatch: a manifest or journal against its plan', () => {
  const REPO = '.github/copilot-instructions.md';
  const TS = '.github/instructions/ts.instructions.md';
  const ops: Operation[] = [
    { op: 'modify', path: REPO, size: 3, sha256: sha('new'), content: 'new', previousSha256: sha('old') },
    { op: 'create', path: TS, size: 2, sha256: sha('ts'), content: 'ts', previousSha256: null },
  ];
  const plan = sealPlan(ops, { sources: [{ path: REPO, kind: 'copilot-repo', size: 3, sha256: sha('old') }] });
  const manifest = () => ({
    planId: plan.planId,
    before: [{ path: REPO, sha256: sha('old') }],
    creates: [TS],
    ops: ops.map((o) => ({ op: o.op, path: o.path, size: o.size, sha256: o.sha256 })),
    createdDirs: ['.github/instructions'],
  });

  it('agrees with the manifest the plan makes', () => {
    expect(recordMismatch(plan, manifest())).toEqual([]);
  });

  it('names paths the plan does not touch: a rewritten package.json, a created workflow, a removed source', () => {
    const m = manifest();
    m.before.push({ path: 'package.json', sha256: sha('evil') }, { path: '.github/workflows/pwn.yml', sha256: sha('x') });
    m.creates.push('src/orders.ts');
    const problems = recordMismatch(plan, m).join('; ');
    expect(problems).toMatch(/it lists package\.json, \.github\/workflows\/pwn\.yml, src\/orders\.ts, which the plan does not touch/);
  });

  it.each<[string, (m: ReturnType<typeof manifest>) => void, RegExp]>([
    ['another plan id', (m) => (m.planId = '0123456789abcdef'), /names plan 0123456789abcdef/],
    ['a planned path missing', (m) => (m.ops = m.ops.slice(1)), /lacks \.github\/copilot-instructions\.md/],
    ['other backed-up bytes', (m) => (m.before[0]!.sha256 = sha('forged')), /other bytes than the plan for \.github\/copilot-instructions\.md/],
    ['a modify turned into a create', (m) => (m.creates.push(REPO), (m.before = [])), /other bytes than the plan for \.github\/copilot-instructions\.md/],
    ['other written bytes', (m) => (m.ops[1]!.sha256 = sha('other')), /other bytes than the plan for \.github\/instructions\/ts\.instructions\.md/],
    ['a folder no created file is in', (m) => m.createdDirs.push('src'), /remove the folders src/],
  ])('%s is named', (_name, change, re) => {
    const m = manifest();
    change(m);
    expect(recordMismatch(plan, m).join('; ')).toMatch(re);
  });

  it('checks a journal (ops with the previous hash) the same way', () => {
    const j = { planId: plan.planId, ops: ops.map((o) => ({ op: o.op, path: o.path, sha256: o.sha256, previousSha256: o.previousSha256 })), createdDirs: [] as string[] };
    expect(recordMismatch(plan, j)).toEqual([]);
    j.ops[0]!.previousSha256 = sha('someone else');
    expect(recordMismatch(plan, j).join('; ')).toMatch(/other bytes than the plan for \.github\/copilot-instructions\.md/);
  });
});
