#!/usr/bin/env node
/**
 * Case: scope quality judged on real maintainers' work (the folder COPILOT_ONBOARDING_EVAL_CASES names; bench/eval-cases.tsv lists them). The headline comes
 * from these cases only, split and reassembly reported apart; the labelled and synthetic set of
 * test/fixtures/eval (bench/eval-labelled.mjs) is reported as regression information and does not
 * count. The rule is written out in docs/evaluation.md; in short:
 *
 * - each case is a monolith (`monolith.md`), a repository tree (`tree.txt`) and the maintainers'
 *   `.instructions.md` files (`case.json`: path, applyTo, sizes);
 * - the engine runs in process (snapshot = the monolith as `.github/copilot-instructions.md` +
 *   the tree; analyze; buildPlan), no files are written and no process is spawned;
 * - a human scope unit is one human file whose applyTo matches at least one file of the tree and
 *   not all of them; a proposal unit is one `.instructions.md` file the plan writes whose applyTo
 *   (read from the front matter it writes) does not match every file of the tree;
 * - units are paired one to one, greedily by descending Jaccard of their file sets over the tree;
 *   a pair with Jaccard >= 0.5 is a hit; recall = hits / human units, precision = hits /
 *   proposal units (pooled over the cases of a kind);
 * - bytes lost: monolith bytes that no plan section covers, or whose text is not found in the
 *   output its section is sent to;
 * - repository-wide bytes: the repository-wide file after the plan plus every written file whose
 *   applyTo matches the whole tree, against the humans' own (their repository-wide file plus their
 *   files that match the whole tree); the figure is the median of the per-case ratio.
 *
 *   npm run build && node bench/eval.mjs [--cases] [--units] [--json]
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CASES_DIR, REPO_WIDE, globMatcher, readInstruction } from './eval-make-case.mjs';

export { CASES_DIR };
const INSTR_RE = /^\.github\/instructions\/(?:.*\/)?[^/]+\.instructions\.md$/;
/** The Jaccard a proposal's file set must reach against a human's to be a hit. */
export const HIT_JACCARD = 0.5;
/** A split's human file whose content lines are at least this share the monolith's was moved, not written anew. */
export const MOVED_SHARE = 0.5;

/** Names of the vendored real cases (folders with a case.json and a monolith.md), sorted. */
export function realCaseNames(dir = CASES_DIR) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => existsSync(path.join(dir, n, 'case.json')) && existsSync(path.join(dir, n, 'monolith.md')))
    .sort();
}

export function readRealCase(name, dir = CASES_DIR) {
  const d = path.join(dir, name);
  const info = JSON.parse(readFileSync(path.join(d, 'case.json'), 'utf8'));
  const tree = readFileSync(path.join(d, 'tree.txt'), 'utf8').split('\n').filter(Boolean);
  return { name, info, tree, bytes: readFileSync(path.join(d, 'monolith.md')) };
}

function fileSet(tree, globs) {
  const m = globMatcher(globs);
  return new Set(tree.filter(m));
}
function jaccard(a, b) {
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  const union = a.size + b.size - inter;
  return union === 0 ? 0 : inter / union;
}

/** Monolith bytes the plan loses: not covered by a section, or not found in the section's output. */
export function bytesLost(plan, src) {
  const outputs = new Map(plan.operations.filter((o) => o.content !== null).map((o) => [o.path, Buffer.from(o.content, 'utf8')]));
  const pieces = plan.sections.flatMap((s) => s.ranges.map((r) => ({ ...r, dest: s.destination }))).sort((a, b) => a.start - b.start || a.end - b.end);
  const cursor = new Map();
  let covered = 0;
  let reached = 0;
  let found = 0;
  for (const p of pieces) {
    // Coverage: bytes of [0, size) that some section holds (overlaps counted once).
    if (p.end > reached) {
      covered += p.end - Math.max(p.start, reached);
      reached = p.end;
    }
    const text = src.subarray(p.start, p.end);
    if (text.length === 0) continue;
    // Unchanged source: a section kept in an untouched repository-wide file is not lost.
    const out = outputs.get(p.dest) ?? (p.dest === REPO_WIDE && !plan.operations.some((o) => o.path === REPO_WIDE) ? src : null);
    if (!out) continue;
    let at = out.indexOf(text, cursor.get(p.dest) ?? 0);
    if (at < 0) at = out.indexOf(text);
    if (at >= 0) {
      found += text.length;
      cursor.set(p.dest, at + text.length);
    }
  }
  return src.length - Math.min(covered, found);
}

/** Score one real case with core = {analyze, buildPlan} and core/copilot-format's functions. */
export function scoreRealCase(core, c) {
  const { info, tree } = c;
  const snapshot = {
    sources: [{ path: REPO_WIDE, kind: 'copilot-repo', bytes: new Uint8Array(c.bytes), size: c.bytes.length, sha256: createHash('sha256').update(c.bytes).digest('hex') }],
    refused: [],
    files: tree,
    filesTruncated: info.treeCapped === true,
  };
  const plan = core.buildPlan({ snapshot, analysis: core.analyze(snapshot) });
  const everywhere = (set) => set.size === tree.length;

  const humans = [];
  const unmatchable = [];
  for (const h of info.humans) {
    if (!h.globs) continue;
    const set = fileSet(tree, h.globs);
    if (set.size === 0) unmatchable.push(h.path);
    else if (!everywhere(set)) humans.push({ path: h.path, applyTo: h.applyTo, set, moved: typeof h.monolithLineShare === 'number' ? h.monolithLineShare >= MOVED_SHARE : null });
  }
  const proposals = [];
  let planRepoWide = 0;
  let repoOp = null;
  for (const o of plan.operations) {
    if (o.path === REPO_WIDE) repoOp = o;
    if (o.content === null || !INSTR_RE.test(o.path)) continue;
    const fm = readInstruction(core, Buffer.from(o.content, 'utf8'));
    const set = fm.globs ? fileSet(tree, fm.globs) : new Set();
    if (everywhere(set)) planRepoWide += Buffer.byteLength(o.content, 'utf8');
    else proposals.push({ path: o.path, applyTo: fm.applyTo, set, bytes: Buffer.byteLength(o.content, 'utf8') });
  }
  planRepoWide += repoOp ? (repoOp.content === null ? 0 : Buffer.byteLength(repoOp.content, 'utf8')) : c.bytes.length;

  // One-to-one pairing, best Jaccard first (ties by path, so the result is deterministic).
  const pairs = [];
  for (const h of humans) for (const p of proposals) {
    const j = jaccard(h.set, p.set);
    if (j >= HIT_JACCARD) pairs.push({ h, p, j });
  }
  pairs.sort((a, b) => b.j - a.j || (a.h.path < b.h.path ? -1 : a.h.path > b.h.path ? 1 : a.p.path < b.p.path ? -1 : a.p.path > b.p.path ? 1 : 0));
  const usedH = new Set();
  const usedP = new Set();
  const hits = [];
  for (const x of pairs) {
    if (usedH.has(x.h) || usedP.has(x.p)) continue;
    usedH.add(x.h);
    usedP.add(x.p);
    hits.push({ human: x.h.path, humanApplyTo: x.h.applyTo, proposal: x.p.path, proposalApplyTo: x.p.applyTo, jaccard: x.j, files: x.p.set.size });
  }
  const best = (set, others) => others.reduce((m, o) => Math.max(m, jaccard(set, o.set)), 0);
  // The questions the plan asks: candidate scopes for large sections kept repository-wide
  // (leftover) and other scopes for large sections written to a path-specific file (alternatives).
  const candidateSets = (list) => (list ?? []).flatMap((x) => x.candidates.map((k) => ({ set: fileSet(tree, core.splitApplyTo(k.applyTo)) })));
  const kept = candidateSets(plan.leftover?.suggestions);
  const asked = [...kept, ...candidateSets(plan.alternatives)];
  // Splits: recall apart for human files moved from the monolith and files written anew.
  const origin = (moved) => {
    const hs = humans.filter((h) => h.moved === moved);
    return { units: hs.length, hits: hs.filter((h) => usedH.has(h)).length };
  };
  return {
    byOrigin: { moved: origin(true), rewritten: origin(false) },
    // Many to one (information): a human file is reached when some written file has Jaccard >= 0.5
    // with it, a written file is right when it has that with some human file; one written file may
    // stand for several human files of the same scope (four `**/*.go` files in one repository).
    manyToOne: {
      humansReached: humans.filter((h) => best(h.set, proposals) >= HIT_JACCARD).length,
      proposalsRight: proposals.filter((p) => best(p.set, humans) >= HIT_JACCARD).length,
    },
    textPlaced: textPlaced(plan, info, { hits, humans, unmatchable, repoWideDest: new Set([REPO_WIDE, ...plan.operations.filter((o) => o.content !== null && INSTR_RE.test(o.path) && !proposals.some((p) => p.path === o.path)).map((o) => o.path)]) }),
    rulesLoaded: rulesLoaded(plan, info, tree.length, { humans, unmatchable, proposals }),
    // Information: human files no written file matches that a candidate scope the plan asks about
    // matches (a person's answer could take them), and how many of those candidates match a human file.
    questions: {
      reach: humans.filter((h) => !usedH.has(h) && best(h.set, asked) >= HIT_JACCARD).length,
      reachKept: humans.filter((h) => !usedH.has(h) && best(h.set, kept) >= HIT_JACCARD).length,
      asked: asked.length,
      right: asked.filter((a) => best(a.set, humans) >= HIT_JACCARD).length,
    },
    name: c.name,
    repo: info.repo,
    kind: info.kind,
    humanUnits: humans.length,
    proposalUnits: proposals.length,
    hits,
    missed: humans.filter((h) => !usedH.has(h)).map((h) => ({ path: h.path, applyTo: h.applyTo, files: h.set.size, bestJaccard: best(h.set, proposals) })),
    unmatched: proposals.filter((p) => !usedP.has(p)).map((p) => ({ path: p.path, applyTo: p.applyTo, files: p.set.size, bestJaccard: best(p.set, humans) })),
    unmatchable,
    bytesLost: bytesLost(plan, c.bytes),
    monolithBytes: c.bytes.length,
    planRepoWide,
    humansRepoWide: info.humansRepoWideBytes,
    repoWideRatio: info.humansRepoWideBytes > 0 ? planRepoWide / info.humansRepoWideBytes : null,
    filesCreated: plan.operations.filter((o) => o.op === 'create').length,
  };
}

/**
 * Reassembly only (where each monolith byte's human file is known): of the bytes of human files,
 * how many the plan sends where that human file's text belongs: a scoped human file's bytes to
 * the written file paired with it (a hit), a repository-wide part's bytes (the existing
 * `.github/copilot-instructions.md`, files matching every path) to the repository-wide file or a
 * written file matching every path. Bytes of human files that match no path are not counted.
 */
function textPlaced(plan, info, { hits, humans, unmatchable, repoWideDest }) {
  if (!info.monolithParts) return null;
  const paired = new Map(hits.map((h) => [h.proposal, h.human]));
  const scoped = new Set(humans.map((h) => h.path));
  const skip = new Set(unmatchable);
  let right = 0;
  let total = 0;
  const pieces = plan.sections.flatMap((x) => x.ranges.map((r) => ({ ...r, dest: x.destination })));
  for (const part of info.monolithParts) {
    if (skip.has(part.from)) continue;
    total += part.end - part.start;
    const wide = !scoped.has(part.from);
    for (const p of pieces) {
      const o = Math.min(p.end, part.end) - Math.max(p.start, part.start);
      if (o <= 0) continue;
      if (wide ? repoWideDest.has(p.dest) : paired.get(p.dest) === part.from) right += o;
    }
  }
  return { right, total };
}

/**
 * Reassembly only: whether the plan still loads each rule where the maintainers load it. Every
 * byte of a human file's text counts once for each tree file its human file applies to (every
 * file for a repository-wide part); of those (byte, file) pairs, `kept` are the ones where the
 * output the plan sends that byte to applies too (the repository-wide file applies everywhere).
 * A byte scoped narrower than its maintainers scoped it is a rule that no longer loads for some
 * of their files; one scoped wider only costs characters (`extra`, the pairs the plan adds).
 */
function rulesLoaded(plan, info, treeSize, { humans, unmatchable, proposals }) {
  if (!info.monolithParts || treeSize === 0) return null;
  const human = new Map(humans.map((h) => [h.path, h.set]));
  const written = new Map(proposals.map((p) => [p.path, p.set]));
  const skip = new Set(unmatchable);
  const pieces = plan.sections.flatMap((x) => x.ranges.map((r) => ({ ...r, set: written.get(x.destination) ?? null })));
  let need = 0;
  let kept = 0;
  let extra = 0;
  for (const part of info.monolithParts) {
    if (skip.has(part.from)) continue;
    const h = human.get(part.from) ?? null; // null: the part applies to every file
    for (const p of pieces) {
      const o = Math.min(p.end, part.end) - Math.max(p.start, part.start);
      if (o <= 0) continue;
      const hN = h ? h.size : treeSize;
      const pN = p.set ? p.set.size : treeSize;
      let both = Math.min(hN, pN);
      if (h && p.set) {
        both = 0;
        for (const f of h) if (p.set.has(f)) both++;
      }
      need += o * hN;
      kept += o * both;
      extra += o * (pN - both);
    }
  }
  return need ? { need, kept, extra } : null;
}

function median(xs) {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Pooled figures over a list of scored cases. */
export function summarize(cases) {
  const sum = (f) => cases.reduce((n, c) => n + f(c), 0);
  const hits = sum((c) => c.hits.length);
  const humanUnits = sum((c) => c.humanUnits);
  const proposalUnits = sum((c) => c.proposalUnits);
  const js = cases.flatMap((c) => c.hits.map((h) => h.jaccard));
  const ratios = cases.map((c) => c.repoWideRatio).filter((r) => r !== null);
  return {
    cases: cases.length,
    hits,
    humanUnits,
    proposalUnits,
    recall: humanUnits ? hits / humanUnits : null,
    precision: proposalUnits ? hits / proposalUnits : null,
    meanHitJaccard: js.length ? js.reduce((a, b) => a + b, 0) / js.length : null,
    bytesLost: sum((c) => c.bytesLost),
    casesLosingBytes: cases.filter((c) => c.bytesLost > 0).map((c) => c.name),
    medianRepoWideRatio: median(ratios),
    ratioCases: ratios.length,
    planRepoWide: sum((c) => c.planRepoWide),
    humansRepoWide: sum((c) => c.humansRepoWide),
    filesCreated: sum((c) => c.filesCreated),
    manyToOne: (() => {
      const reached = sum((c) => c.manyToOne.humansReached);
      const right = sum((c) => c.manyToOne.proposalsRight);
      return { humansReached: reached, proposalsRight: right, recall: humanUnits ? reached / humanUnits : null, precision: proposalUnits ? right / proposalUnits : null };
    })(),
    byOrigin: Object.fromEntries(['moved', 'rewritten'].map((k) => [k, { units: sum((c) => c.byOrigin[k].units), hits: sum((c) => c.byOrigin[k].hits) }])),
    questions: { reach: sum((c) => c.questions.reach), reachKept: sum((c) => c.questions.reachKept), asked: sum((c) => c.questions.asked), right: sum((c) => c.questions.right) },
    rulesLoaded: (() => {
      const t = cases.map((c) => c.rulesLoaded).filter(Boolean);
      if (!t.length) return null;
      const kept = t.map((x) => x.kept / x.need);
      return { cases: t.length, mean: kept.reduce((a, b) => a + b, 0) / t.length, median: median(kept), below80: kept.filter((x) => x < 0.8).length, extraMedian: median(t.map((x) => x.extra / x.need)) };
    })(),
    textPlaced: (() => {
      const t = cases.map((c) => c.textPlaced).filter(Boolean);
      return t.length ? { right: t.reduce((n, x) => n + x.right, 0), total: t.reduce((n, x) => n + x.total, 0), cases: t.length, median: median(t.filter((x) => x.total > 0).map((x) => x.right / x.total)) } : null;
    })(),
  };
}

/** Score every vendored real case (or the named ones); figures per kind and over all. */
export function evaluateReal(core, names = realCaseNames()) {
  const cases = names.map((n) => scoreRealCase(core, readRealCase(n)));
  return {
    cases,
    split: summarize(cases.filter((c) => c.kind === 'split')),
    reassembly: summarize(cases.filter((c) => c.kind === 'reassembly')),
    all: summarize(cases),
  };
}

const pct = (x) => (x === null ? 'n/a' : `${(100 * x).toFixed(0)} %`);
const times = (x) => (x === null ? 'n/a' : `${x.toFixed(2)}×`);

/** Why a figure over these cases falls short: where the misses and the extra files are. */
function why(cases, what) {
  const top = (f) =>
    cases
      .map((c) => [c.repo, f(c)])
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, 5)
      .map(([repo, n]) => `${repo} ${n}`)
      .join(', ');
  if (what === 'recall') {
    const missed = cases.flatMap((c) => c.missed);
    const near = missed.filter((m) => m.bestJaccard > 0).length;
    return `${missed.length} human files matched by no written file (${near} share some files with a written file, below Jaccard 0.5; ${missed.length - near} share none); most in ${top((c) => c.missed.length)}. \`node bench/eval.mjs --units\` lists them.`;
  }
  if (what === 'precision') {
    const extra = cases.flatMap((c) => c.unmatched);
    const dup = cases.reduce((n, c) => n + c.unmatched.filter((u) => u.bestJaccard >= HIT_JACCARD).length, 0);
    return `${extra.length} written files match no human file one to one (${dup} of them cover a human file's scope that another written file already took: more than one file per topic); most in ${top((c) => c.unmatched.length)}.`;
  }
  if (what === 'ratio') return `Largest ratios: ${cases.filter((c) => c.repoWideRatio !== null).sort((a, b) => b.repoWideRatio - a.repoWideRatio).slice(0, 5).map((c) => `${c.repo} ${c.repoWideRatio.toFixed(1)}×`).join(', ')}.`;
  return `Bytes lost in ${cases.filter((c) => c.bytesLost > 0).map((c) => `${c.repo} (${c.bytesLost} B)`).join(', ')}.`;
}

/** Rows for bench/run.mjs: the real figures against the targets, then the regression set as info. */
export function rows(r, labelled) {
  const out = [];
  if (r.all.cases === 0) {
    out.push({ case: 'scope recall and precision', input: 'no real cases found', value: '—', target: '≥ 70 % / ≥ 90 %', status: 'MISS', note: `no case folders in ${CASES_DIR}: set COPILOT_ONBOARDING_EVAL_CASES to the cases' folder, or build them with bench/eval-make-case.mjs from the repositories in bench/eval-cases.tsv (bench/eval-sources.md)` });
  }
  for (const kind of ['split', 'reassembly', 'all']) {
    const s = r[kind];
    if (s.cases === 0) continue;
    const input = kind === 'all' ? `all ${s.cases} real cases` : `${s.cases} real ${kind === 'split' ? 'maintainers\u2019 splits' : 'reassembled repositories'}`;
    const target = kind === 'all';
    const cs = kind === 'all' ? r.cases : r.cases.filter((c) => c.kind === kind);
    out.push({ case: 'scope recall', input, value: `${pct(s.recall)} (${s.hits}/${s.humanUnits})`, target: '≥ 70 %', status: !target ? 'info' : s.recall >= 0.7 ? 'PASS' : 'MISS', note: `human files whose scope a written file matches (Jaccard ≥ ${HIT_JACCARD} over the tree, one to one); mean Jaccard of hits ${s.meanHitJaccard === null ? 'n/a' : s.meanHitJaccard.toFixed(2)}`, why: why(cs, 'recall') });
    out.push({ case: 'scope precision', input, value: `${pct(s.precision)} (${s.hits}/${s.proposalUnits})`, target: '≥ 90 %', status: !target ? 'info' : s.precision >= 0.9 ? 'PASS' : 'MISS', note: `written path-specific files that match a human file's scope; ${s.filesCreated} files created in all`, why: why(cs, 'precision') });
    out.push({ case: 'bytes lost', input, value: `${s.bytesLost} B`, target: '0', status: !target ? 'info' : s.bytesLost === 0 ? 'PASS' : 'MISS', note: s.casesLosingBytes.length ? `in ${s.casesLosingBytes.join(', ')}` : 'every monolith byte found in its output', why: why(cs, 'lost') });
    out.push({ case: 'repository-wide after the plan', input, value: `${times(s.medianRepoWideRatio)} the humans' (median of ${s.ratioCases})`, target: '≤ 2×', status: !target ? 'info' : s.medianRepoWideRatio !== null && s.medianRepoWideRatio <= 2 ? 'PASS' : 'MISS', note: `${s.planRepoWide} B always-on after the plans vs ${s.humansRepoWide} B in the humans' repository-wide files (and files matching every path)`, why: why(cs, 'ratio') });
  }
  if (r.all.cases > 0) {
    const m = (s) => `${pct(s.manyToOne.recall)} (${s.manyToOne.humansReached}/${s.humanUnits}) / ${pct(s.manyToOne.precision)} (${s.manyToOne.proposalsRight}/${s.proposalUnits})`;
    const parts = ['split', 'reassembly'].filter((k) => r[k].cases > 0).map((k) => `${k === 'split' ? 'splits' : 'reassembly'} ${m(r[k])}`);
    out.push({ case: 'scope recall / precision, many to one', input: `all ${r.all.cases} real cases`, value: m(r.all), target: '—', status: 'info', note: `a human file is reached when some written file has Jaccard ≥ ${HIT_JACCARD} with it, a written file is right when it has that with some human file (one written file may stand for several human files of one scope; one file per topic can never match them one to one); ${parts.join('; ')}` });
  }
  const o = r.split.cases > 0 ? r.split.byOrigin : null;
  if (o && o.moved.units + o.rewritten.units > 0) {
    const f = (x) => `${pct(x.units ? x.hits / x.units : null)} (${x.hits}/${x.units})`;
    out.push({ case: 'scope recall by where the text came from', input: `${r.split.cases} real maintainers’ splits`, value: `moved ${f(o.moved)}, written anew ${f(o.rewritten)}`, target: '—', status: 'info', note: `a human file is moved when ${Math.round(MOVED_SHARE * 100)} % or more of its content lines are the monolith's as they were (case.json monolithLineShare, bench/eval-make-case.mjs); files written anew during the split have text the plan never saw` });
  }
  const tp = r.reassembly.textPlaced;
  if (tp) out.push({ case: 'text placed with its scope', input: `${tp.cases} real reassembled repositories`, value: `${pct(tp.right / tp.total)} of the bytes (median per case ${pct(tp.median)})`, target: '—', status: 'info', note: `${tp.right} of ${tp.total} bytes of the human files go where that file's text belongs: the written file paired with it, or the repository-wide file for repository-wide parts` });
  const q = r.all.questions;
  if (r.all.cases > 0 && q.asked > 0) {
    const missed = r.all.humanUnits - r.all.hits;
    out.push({ case: 'human files a question of the plan reaches', input: `all ${r.all.cases} real cases`, value: `${q.reach} of the ${missed} human files no written file matches (recall ${pct(r.all.humanUnits ? (r.all.hits + q.reach) / r.all.humanUnits : null)} at most with the person's answers)`, target: '—', status: 'info', note: `a candidate scope the plan offers (the question the agent asks the person) has Jaccard ≥ ${HIT_JACCARD} with the human file: for a large section kept repository-wide (leftover, ${q.reachKept} human files) or another scope for a large section written to a path-specific file (alternatives); ${q.right} of the ${q.asked} candidates offered match some human file` });
  }
  const rl = r.reassembly.rulesLoaded;
  if (rl) out.push({ case: 'rules still loaded where the maintainers load them', input: `${rl.cases} real reassembled repositories`, value: `mean ${pct(rl.mean)} per case (median ${pct(rl.median)}; ${rl.below80} cases below 80 %)`, target: '—', status: 'info', note: `each byte of a human file's text counted once per tree file its human file applies to (every file for repository-wide text): the share of those the plan's output for that byte applies to as well; the rest are rules that no longer load for files the maintainers load them for. The plan loads text for files the maintainers did not on a median of ${pct(rl.extraMedian)} more (characters spent, no rule lost)` });
  if (labelled) {
    out.push({ case: 'labelled regression set', input: `${labelled.cases.length} labelled/synthetic cases (test/fixtures/eval)`, value: `recall ${pct(labelled.recall)} (${labelled.hits}/${labelled.humanScoped}), precision ${pct(labelled.precision)} (${labelled.hits}/${labelled.proposedScoped})`, target: '—', status: 'info', note: `not counted in the figures above; bytes lost: ${labelled.lossless ? 0 : 'SOME'}` });
  }
  return out;
}

/** The bench case: rows for bench/run.mjs. */
export async function run({ log = () => {} } = {}) {
  const { load } = await import('./lib.mjs');
  const core = { ...(await load('core/copilot-format.js')), analyze: (await load('core/analyze.js')).analyze, buildPlan: (await load('core/plan.js')).buildPlan };
  const t0 = performance.now();
  const r = evaluateReal(core);
  const ms = performance.now() - t0;
  for (const c of r.cases) log(`  ${c.kind.padEnd(10)} ${c.name}: ${c.hits.length}/${c.humanUnits} human units hit, ${c.proposalUnits} proposed, lost ${c.bytesLost} B, repo-wide ${c.planRepoWide} B vs humans ${c.humansRepoWide} B`);
  log(`  scored ${r.cases.length} real cases in ${ms.toFixed(0)} ms`);
  const { evaluate } = await import('./eval-labelled.mjs');
  const labelled = evaluate(core);
  return { rows: rows(r, labelled), result: { ...r, labelled: { ...labelled, cases: labelled.cases.map(({ plan, ...c }) => c) }, ms } };
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const { rows: rs, result } = await run({ log: (s) => process.stderr.write(`${s}\n`) });
  if (process.argv.includes('--json')) console.log(JSON.stringify(result, null, 2));
  if (process.argv.includes('--units'))
    for (const c of result.cases) {
      for (const h of c.hits) console.log(['HIT', c.name, h.human, h.humanApplyTo, h.proposal, h.proposalApplyTo, h.jaccard.toFixed(2)].join('\t'));
      for (const h of c.missed) console.log(['MISSED', c.name, h.path, h.applyTo, `${h.files} files`, `best J ${h.bestJaccard.toFixed(2)}`].join('\t'));
      for (const p of c.unmatched) console.log(['EXTRA', c.name, p.path, p.applyTo, `${p.files} files`, `best J ${p.bestJaccard.toFixed(2)}`].join('\t'));
    }
  for (const r of rs) console.log(`${r.case} — ${r.input}: ${r.value} (target ${r.target}) ${r.status} — ${r.note}`);
}
