/**
 * Regression set (not the headline figure: see bench/eval.mjs for the real maintainers' cases):
 * scope quality on the labelled evaluation set (test/fixtures/eval/). Each case is a
 * monolith (a vendored corpus file named in `source`, or `instructions.md`), a repository tree of
 * empty files (`tree.txt`) and a maintainer's label per section (`labels.tsv`: title, scope or
 * `repo-wide`, one line of reason). The plan of analyze + buildPlan is compared with the labels:
 *
 * - a section is *human-scoped* when its label is a glob list; *proposed-scoped* when the plan
 *   gives it an applyTo;
 * - a hit is a section both scoped whose proposed globs match files of the tree that the labelled
 *   globs match too, at least half of them (a scope mostly on the wrong files is a miss and a
 *   false positive);
 * - recall = hits / human-scoped, precision = hits / proposed-scoped (a plan section without a
 *   label that is scoped counts against precision; a label without a plan section, against recall);
 * - leftover = characters left in the repository-wide file by the plan, next to the labels' own.
 *
 * The scorer takes the core functions as arguments, so test/unit/eval.test.ts runs it on the
 * TypeScript sources and bench/eval.mjs on the build (its figures are reported there as
 * regression information; they do not count toward the headline).
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import picomatch from 'picomatch';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const EVAL_DIR = path.resolve(HERE, '../test/fixtures/eval');
const CORPUS_DIR = path.resolve(HERE, '../test/fixtures/corpus');
const REPO_WIDE = '.github/copilot-instructions.md';

function readCase(name) {
  const dir = path.join(EVAL_DIR, name);
  const src = existsSync(path.join(dir, 'source')) ? path.join(CORPUS_DIR, readFileSync(path.join(dir, 'source'), 'utf8').trim()) : path.join(dir, 'instructions.md');
  const files = readFileSync(path.join(dir, 'tree.txt'), 'utf8').split('\n').map((l) => l.trim()).filter(Boolean).sort();
  const labels = readFileSync(path.join(dir, 'labels.tsv'), 'utf8')
    .split('\n')
    .slice(1)
    .filter((l) => l.trim())
    .map((l) => {
      const [title, scope, reason] = l.split('\t');
      return { title, globs: scope === 'repo-wide' ? null : scope.split(','), reason };
    });
  return { name, bytes: new Uint8Array(readFileSync(src)), files, labels };
}

/** The tree's files that a glob list matches. */
function filesOf(files, globs) {
  const tests = globs.map((g) => picomatch(g, { dot: true }));
  return new Set(files.filter((f) => tests.some((t) => t(f))));
}

/** Score one case: plan sections matched to labels by title, in order. */
export function scoreCase(core, c) {
  const sha256 = createHash('sha256').update(c.bytes).digest('hex');
  const snapshot = { sources: [{ path: REPO_WIDE, kind: 'copilot-repo', bytes: c.bytes, size: c.bytes.length, sha256 }], refused: [], files: c.files, filesTruncated: false };
  const plan = core.buildPlan({ snapshot, analysis: core.analyze(snapshot) });
  const unused = [...c.labels];
  const rows = [];
  let humanScoped = 0;
  let proposedScoped = 0;
  let hits = 0;
  for (const s of plan.sections) {
    const i = unused.findIndex((l) => l.title === s.title);
    const label = i >= 0 ? unused.splice(i, 1)[0] : null;
    const proposed = s.applyTo === null ? null : s.applyTo.split(',');
    if (label?.globs) humanScoped++;
    if (proposed) proposedScoped++;
    let hit = false;
    if (label?.globs && proposed) {
      const want = filesOf(c.files, label.globs);
      const got = [...filesOf(c.files, proposed)];
      hit = got.filter((f) => want.has(f)).length * 2 >= got.length && got.some((f) => want.has(f));
      if (hit) hits++;
    }
    rows.push({ title: s.title, label: label ? (label.globs?.join(',') ?? 'repo-wide') : '(no label)', proposed: s.applyTo ?? 'repo-wide', hit, evidence: s.evidence.length });
  }
  for (const l of unused) {
    if (l.globs) humanScoped++;
    rows.push({ title: l.title, label: l.globs?.join(',') ?? 'repo-wide', proposed: '(no such section)', hit: false, evidence: 0 });
  }
  const repoOp = plan.operations.find((o) => o.path === REPO_WIDE);
  const leftover = repoOp ? (repoOp.content === null ? 0 : [...repoOp.content].length) : [...Buffer.from(c.bytes).toString('utf8')].length;
  const humanLeft = plan.sections.filter((s) => {
    const l = c.labels.find((x) => x.title === s.title);
    return l && !l.globs;
  }).reduce((n, s) => n + s.ranges.reduce((m, r) => m + Buffer.from(c.bytes).subarray(r.start, r.end).toString('utf8').length, 0), 0);
  const withoutEvidence = plan.sections.filter((s) => s.evidence.length === 0).length;
  return { name: c.name, plan, rows, humanScoped, proposedScoped, hits, leftover, humanLeft, lossless: plan.lossless.ok, withoutEvidence };
}

/** Score every case of the set; totals over all sections of all cases. */
export function evaluate(core, names = readdirSync(EVAL_DIR).filter((n) => existsSync(path.join(EVAL_DIR, n, 'labels.tsv'))).sort()) {
  const cases = names.map((n) => scoreCase(core, readCase(n)));
  const sum = (k) => cases.reduce((n, c) => n + c[k], 0);
  const hits = sum('hits');
  return {
    cases,
    recall: sum('humanScoped') ? hits / sum('humanScoped') : 1,
    precision: sum('proposedScoped') ? hits / sum('proposedScoped') : 1,
    hits,
    humanScoped: sum('humanScoped'),
    proposedScoped: sum('proposedScoped'),
    leftover: sum('leftover'),
    humanLeft: sum('humanLeft'),
    lossless: cases.every((c) => c.lossless),
    withoutEvidence: sum('withoutEvidence'),
  };
}
