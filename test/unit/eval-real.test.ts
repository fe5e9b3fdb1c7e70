/**
 * The real evaluation cases (outside the repository: COPILOT_ONBOARDING_EVAL_CASES or
 * COPILOT_ONBOARDING_EVAL_CASES, which .ci/run sets when the shared folder has them; skipped when absent, as on a fresh clone) on the TypeScript sources: every plan keeps every
 * byte of its monolith (the score itself is a benchmark, bench/eval.mjs, never asserted here), and
 * the scorer's own rules (one-to-one pairing, the Jaccard threshold, the byte-loss check, what
 * counts as repository-wide) hold on hand-made plans.
 */
import { describe, expect, it } from 'vitest';
import { analyze } from '../../server/src/core/analyze.js';
import { buildPlan } from '../../server/src/core/plan.js';
import * as format from '../../server/src/core/copilot-format.js';
// @ts-expect-error: a plain ESM script without types
import { bytesLost, evaluateReal, readRealCase, realCaseNames, rows, scoreRealCase, summarize } from '../../bench/eval.mjs';

interface Op { op: string; path: string; content: string | null }
interface Sec { destination: string; ranges: { start: number; end: number }[] }
interface FakePlan { sections: Sec[]; operations: Op[] }

const core = { ...format, analyze, buildPlan };
const REPO_WIDE = '.github/copilot-instructions.md';

function fm(applyTo: string, body: string): string {
  return `---\napplyTo: "${applyTo}"\n---\n${body}`;
}

/** A case in memory: tree, humans (path + applyTo), monolith; and a core that returns `plan`. */
function fakeCase(tree: string[], humans: [string, string][], monolith: string, humansRepoWideBytes = 100) {
  return {
    name: 'fake',
    tree,
    bytes: Buffer.from(monolith),
    info: {
      repo: 'x/fake',
      kind: 'reassembly',
      treeCapped: false,
      humansRepoWideBytes,
      humans: humans.map(([path, applyTo]) => ({ path, applyTo, globs: applyTo.split(',') })),
    },
  };
}
const fakeCore = (plan: FakePlan) => ({ ...format, analyze: () => ({}), buildPlan: () => plan });

describe.skipIf(realCaseNames().length === 0)('real evaluation cases (when COPILOT_ONBOARDING_EVAL_CASES names them)', () => {
  const names: string[] = realCaseNames();

  it('has vendored split and reassembly cases', () => {
    const kinds = new Set(names.map((n) => readRealCase(n).info.kind));
    expect(kinds).toEqual(new Set(['split', 'reassembly']));
  });

  it('loses no byte of any monolith', () => {
    const r = evaluateReal(core, names);
    const lost = r.cases.filter((c: { bytesLost: number }) => c.bytesLost > 0).map((c: { name: string; bytesLost: number }) => `${c.name}: ${c.bytesLost} B`);
    expect(lost).toEqual([]);
    expect(r.cases.length).toBe(names.length);
  }, 120_000);
});

describe('the real-case scorer', () => {
  const tree = ['src/a.ts', 'src/b.ts', 'src/c.ts', 'docs/x.md', 'docs/y.md', 'README.md', REPO_WIDE];
  const monolith = '# A\n\nsrc rules\n\n# D\n\ndocs rules\n';
  const aEnd = monolith.indexOf('# D');
  const sections: Sec[] = [
    { destination: '.github/instructions/src.instructions.md', ranges: [{ start: 0, end: aEnd }] },
    { destination: '.github/instructions/docs.instructions.md', ranges: [{ start: aEnd, end: monolith.length }] },
  ];
  const ops = (srcGlob: string, docsGlob: string): Op[] => [
    { op: 'create', path: '.github/instructions/src.instructions.md', content: fm(srcGlob, monolith.slice(0, aEnd)) },
    { op: 'create', path: '.github/instructions/docs.instructions.md', content: fm(docsGlob, monolith.slice(aEnd)) },
    { op: 'delete', path: REPO_WIDE, content: null },
  ];
  const humans: [string, string][] = [
    ['.github/instructions/code.instructions.md', 'src/**'],
    ['.github/instructions/docs.instructions.md', 'docs/**'],
  ];

  it('counts a hit when the file sets overlap with Jaccard >= 0.5, and a miss below', () => {
    // src/** vs src/{a,b}.ts: Jaccard 2/3, a hit; docs/** vs **/*.md: 2/3 too.
    let r = scoreRealCase(fakeCore({ sections, operations: ops('src/a.ts,src/b.ts', '**/*.md') }), fakeCase(tree, humans, monolith));
    expect(r.hits.map((h: { human: string }) => h.human).sort()).toEqual(humans.map((h) => h[0]).sort());
    // src/a.ts alone: Jaccard 1/3, a miss (and the proposal is unmatched).
    r = scoreRealCase(fakeCore({ sections, operations: ops('src/a.ts', 'docs/**') }), fakeCase(tree, humans, monolith));
    expect(r.hits.map((h: { human: string }) => h.human)).toEqual(['.github/instructions/docs.instructions.md']);
    expect(r.missed.map((m: { path: string }) => m.path)).toEqual(['.github/instructions/code.instructions.md']);
    expect(r.unmatched.map((m: { path: string }) => m.path)).toEqual(['.github/instructions/src.instructions.md']);
  });

  it('pairs one to one: two written files on the same scope make one hit and one false positive', () => {
    const operations: Op[] = [
      { op: 'create', path: '.github/instructions/one.instructions.md', content: fm('src/**', monolith.slice(0, aEnd)) },
      { op: 'create', path: '.github/instructions/two.instructions.md', content: fm('src/**', monolith.slice(aEnd)) },
      { op: 'delete', path: REPO_WIDE, content: null },
    ];
    const plan = { sections: [{ ...sections[0]!, destination: '.github/instructions/one.instructions.md' }, { ...sections[1]!, destination: '.github/instructions/two.instructions.md' }], operations };
    const r = scoreRealCase(fakeCore(plan), fakeCase(tree, humans, monolith));
    expect(r.hits).toHaveLength(1);
    expect(r.proposalUnits).toBe(2);
    expect(r.unmatched).toHaveLength(1);
    // And the other way: one written file cannot stand for two human files on the same scope.
    const twice: [string, string][] = [humans[0]!, ['.github/instructions/code-again.instructions.md', 'src/**']];
    const one = scoreRealCase(fakeCore({ sections, operations: ops('src/**', 'nowhere/**') }), fakeCase(tree, twice, monolith));
    expect(one.humanUnits).toBe(2);
    expect(one.hits).toHaveLength(1);
    expect(one.missed).toHaveLength(1);
  });

  it('also counts many to one (information): one written file reaches every human file of its scope', () => {
    // Two human files on src/**, one on docs/**; the plan writes src/** once and a file no human wrote.
    const three: [string, string][] = [humans[0]!, ['.github/instructions/code-again.instructions.md', 'src/**'], humans[1]!];
    const r = scoreRealCase(fakeCore({ sections, operations: ops('src/**', 'README.md') }), fakeCase(tree, three, monolith));
    expect(r.hits).toHaveLength(1);
    expect(r.manyToOne).toEqual({ humansReached: 2, proposalsRight: 1 });
    // Two written files on one human scope: both are right many to one, one is a hit one to one.
    const operations: Op[] = [
      { op: 'create', path: '.github/instructions/one.instructions.md', content: fm('src/**', monolith.slice(0, aEnd)) },
      { op: 'create', path: '.github/instructions/two.instructions.md', content: fm('src/a.ts,src/b.ts', monolith.slice(aEnd)) },
      { op: 'delete', path: REPO_WIDE, content: null },
    ];
    const plan = { sections: [{ ...sections[0]!, destination: '.github/instructions/one.instructions.md' }, { ...sections[1]!, destination: '.github/instructions/two.instructions.md' }], operations };
    const two = scoreRealCase(fakeCore(plan), fakeCase(tree, humans, monolith));
    expect(two.hits).toHaveLength(1);
    expect(two.manyToOne).toEqual({ humansReached: 1, proposalsRight: 2 });
    // Pooled: recall over human units, precision over written units.
    const s = summarize([r, two]);
    expect(s.manyToOne).toEqual({ humansReached: 3, proposalsRight: 3, recall: 3 / 5, precision: 3 / 4 });
    const line = rows({ split: summarize([]), reassembly: s, all: s, cases: [r, two] }).find((x: { case: string }) => x.case.includes('many to one'));
    expect(line).toMatchObject({ status: 'info', value: '60 % (3/5) / 75 % (3/4)' });
  });

  it('reports split recall apart for human files moved from the monolith and files written anew', () => {
    const c = fakeCase(tree, humans, monolith);
    c.info.kind = 'split';
    // code.instructions.md moved (80 % of its lines were the monolith's), docs written anew (10 %).
    c.info.humans[0] = { ...c.info.humans[0]!, monolithLineShare: 0.8 } as (typeof c.info.humans)[0];
    c.info.humans[1] = { ...c.info.humans[1]!, monolithLineShare: 0.1 } as (typeof c.info.humans)[0];
    const r = scoreRealCase(fakeCore({ sections, operations: ops('src/**', 'nowhere/**') }), c);
    expect(r.byOrigin).toEqual({ moved: { units: 1, hits: 1 }, rewritten: { units: 1, hits: 0 } });
    const s = summarize([r]);
    const line = rows({ split: s, reassembly: summarize([]), all: s, cases: [r] }).find((x: { case: string }) => x.case.includes('where the text came from'));
    expect(line).toMatchObject({ status: 'info', value: 'moved 100 % (1/1), written anew 0 % (0/1)' });
    // Cases built before the field existed count in neither, and the row is left out.
    const old = scoreRealCase(fakeCore({ sections, operations: ops('src/**', 'nowhere/**') }), { ...fakeCase(tree, humans, monolith), info: { ...fakeCase(tree, humans, monolith).info, kind: 'split' } });
    expect(old.byOrigin).toEqual({ moved: { units: 0, hits: 0 }, rewritten: { units: 0, hits: 0 } });
    expect(rows({ split: summarize([old]), reassembly: summarize([]), all: summarize([old]), cases: [old] }).some((x: { case: string }) => x.case.includes('where the text came from'))).toBe(false);
  });

  it('counts a written file whose applyTo matches every path as repository-wide, not as a proposal', () => {
    const operations = ops('**', 'docs/**');
    const r = scoreRealCase(fakeCore({ sections, operations }), fakeCase(tree, humans, monolith, 50));
    expect(r.proposalUnits).toBe(1);
    expect(r.planRepoWide).toBe(Buffer.byteLength(operations[0]!.content!));
    expect(r.repoWideRatio).toBeCloseTo(r.planRepoWide / 50);
  });

  it('leaves out human files that match no path of the tree, and those that match all', () => {
    const r = scoreRealCase(fakeCore({ sections, operations: ops('src/**', 'docs/**') }), fakeCase(tree, [...humans, ['.github/instructions/none.instructions.md', 'nowhere/**'], ['.github/instructions/all.instructions.md', '**']], monolith));
    expect(r.humanUnits).toBe(2);
    expect(r.unmatchable).toEqual(['.github/instructions/none.instructions.md']);
  });

  it('counts text placed with its scope: the bytes of a human file in the written file paired with it', () => {
    const c = fakeCase(tree, humans, monolith);
    const parts = [
      { from: humans[0]![0], start: 0, end: aEnd },
      { from: humans[1]![0], start: aEnd, end: monolith.length },
    ];
    const withParts = { ...c, info: { ...c.info, monolithParts: parts } };
    let r = scoreRealCase(fakeCore({ sections, operations: ops('src/**', 'docs/**') }), withParts);
    expect(r.textPlaced).toEqual({ right: monolith.length, total: monolith.length });
    // The src text sent to the docs file: the scopes still pair, but those bytes are misplaced.
    const swapped = [{ ...sections[0]!, destination: sections[1]!.destination }, sections[1]!];
    r = scoreRealCase(fakeCore({ sections: swapped, operations: ops('src/**', 'docs/**') }), withParts);
    expect(r.textPlaced).toEqual({ right: monolith.length - aEnd, total: monolith.length });
  });

  it('counts rules still loaded where the maintainers load them: a rule scoped narrower loses files, one scoped wider only costs', () => {
    const c = fakeCase(tree, humans, monolith);
    const parts = [
      { from: humans[0]![0], start: 0, end: aEnd },
      { from: REPO_WIDE, start: aEnd, end: monolith.length },
    ];
    const withParts = { ...c, info: { ...c.info, monolithParts: parts } };
    const n = tree.length;
    const docs = monolith.length - aEnd;
    // The src text to src/** (its maintainers' three files), the repository-wide text to docs/** (2 of 7 files).
    let r = scoreRealCase(fakeCore({ sections, operations: ops('src/**', 'docs/**') }), withParts);
    expect(r.rulesLoaded).toEqual({ need: aEnd * 3 + docs * n, kept: aEnd * 3 + docs * 2, extra: 0 });
    // The src text to src/a.ts only (narrower: two files lose it), the repository-wide text kept everywhere.
    const wide: Op[] = [
      { op: 'create', path: '.github/instructions/src.instructions.md', content: fm('src/a.ts', monolith.slice(0, aEnd)) },
      { op: 'modify', path: REPO_WIDE, content: monolith.slice(aEnd) },
    ];
    const kept = [sections[0]!, { ...sections[1]!, destination: REPO_WIDE }];
    r = scoreRealCase(fakeCore({ sections: kept, operations: wide }), withParts);
    expect(r.rulesLoaded).toEqual({ need: aEnd * 3 + docs * n, kept: aEnd + docs * n, extra: 0 });
    // The src text kept repository-wide: nothing lost, four files more than its maintainers'.
    r = scoreRealCase(fakeCore({ sections: [{ ...sections[0]!, destination: REPO_WIDE }, { ...sections[1]!, destination: REPO_WIDE }], operations: [{ op: 'modify', path: REPO_WIDE, content: monolith }] }), withParts);
    expect(r.rulesLoaded).toEqual({ need: aEnd * 3 + docs * n, kept: aEnd * 3 + docs * n, extra: aEnd * (n - 3) });
    const s = summarize([r]);
    const line = rows({ split: summarize([]), reassembly: s, all: s, cases: [r] }).find((x: { case: string }) => x.case.startsWith('rules still loaded'));
    expect(line).toMatchObject({ status: 'info', value: 'mean 100 % per case (median 100 %; 0 cases below 80 %)' });
    // A case built without monolithParts has no figure.
    expect(scoreRealCase(fakeCore({ sections, operations: ops('src/**', 'docs/**') }), c).rulesLoaded).toBeNull();
  });

  it('counts the human files a question of the plan reaches: a candidate scope of its leftover that matches a file no written file matched', () => {
    // The plan writes the src file and keeps the docs text repository-wide, asking about docs/** and README.md.
    const operations: Op[] = [
      { op: 'create', path: '.github/instructions/src.instructions.md', content: fm('src/**', monolith.slice(0, aEnd)) },
      { op: 'modify', path: REPO_WIDE, content: monolith.slice(aEnd) },
    ];
    const leftover = { chars: monolith.length - aEnd, suggestions: [{ section: 's02-d', title: 'D', chars: 12, candidates: [{ applyTo: 'docs/**', evidence: [] }, { applyTo: 'README.md', evidence: [] }] }] };
    const plan = { sections: [sections[0]!, { ...sections[1]!, destination: REPO_WIDE }], operations, leftover };
    const r = scoreRealCase(fakeCore(plan), fakeCase(tree, humans, monolith));
    expect(r.hits).toHaveLength(1);
    expect(r.questions).toEqual({ reach: 1, reachKept: 1, asked: 2, right: 1 });
    const s = summarize([r]);
    const line = rows({ split: summarize([]), reassembly: s, all: s, cases: [r] }).find((x: { case: string }) => x.case.startsWith('human files a question'));
    expect(line).toMatchObject({ status: 'info', value: '1 of the 1 human files no written file matches (recall 100 % at most with the person\'s answers)' });
    // A human file a written file already matches is not counted again.
    const asked = { ...plan, leftover: { ...leftover, suggestions: [{ ...leftover.suggestions[0]!, candidates: [{ applyTo: 'src/**', evidence: [] }] }] } };
    expect(scoreRealCase(fakeCore(asked), fakeCase(tree, humans, monolith)).questions).toEqual({ reach: 0, reachKept: 0, asked: 1, right: 1 });
    // Another scope offered for a section the plan writes (alternatives) is a question too, counted apart from the leftover's.
    const other = { ...asked, alternatives: [{ section: 's01-a', title: 'A', chars: 12, applyTo: 'src/**', candidates: [{ applyTo: 'docs/**', evidence: [] }] }] };
    expect(scoreRealCase(fakeCore(other), fakeCase(tree, humans, monolith)).questions).toEqual({ reach: 1, reachKept: 0, asked: 2, right: 2 });
  });

  it('finds lost bytes: a section not covered, a section whose text is missing from its output', () => {
    const src = Buffer.from(monolith);
    expect(bytesLost({ sections, operations: ops('src/**', 'docs/**') }, src)).toBe(0);
    expect(bytesLost({ sections: [sections[0]!], operations: ops('src/**', 'docs/**') }, src)).toBe(monolith.length - aEnd);
    const cut = ops('src/**', 'docs/**');
    cut[1] = { ...cut[1]!, content: fm('docs/**', 'docs rules\n') };
    expect(bytesLost({ sections, operations: cut }, src)).toBe(monolith.length - aEnd);
    // A piece sent to two outputs is found twice but covers its bytes once: the rest is still lost.
    const twice = ops('src/**', 'docs/**');
    twice[1] = { ...twice[1]!, content: fm('docs/**', monolith.slice(0, aEnd)) };
    expect(bytesLost({ sections: [sections[0]!, { ...sections[0]!, destination: sections[1]!.destination }], operations: twice }, src)).toBe(monolith.length - aEnd);
    // Kept in an untouched repository-wide file: nothing lost.
    expect(bytesLost({ sections: [{ destination: REPO_WIDE, ranges: [{ start: 0, end: monolith.length }] }], operations: [] }, src)).toBe(0);
  });
});
