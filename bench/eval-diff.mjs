#!/usr/bin/env node
/**
 * Two builds of the engine side by side on the real cases (docs/evaluation.md, "Measuring a
 * rule"): for every case whose result differs, the matches lost and gained (human file and the
 * written file's applyTo) and the written files' count before and after; then the totals. This is
 * how each rule of docs/evaluation.md's tables was measured: the build without it against the
 * build with it, on the same cases.
 *
 *   (in each checkout) npm run build:modules
 *   COPILOT_ONBOARDING_EVAL_CASES=<cases> node bench/eval-diff.mjs <before>/bench/.out/modules <after>/bench/.out/modules
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readRealCase, realCaseNames, scoreRealCase } from './eval.mjs';
import { isMain } from './lib.mjs';

/** A match as the two lists compare it: which human file, and the written file's applyTo. */
const key = (h) => `${h.human} <- ${h.proposalApplyTo}`;

/**
 * The cases (scored by scoreRealCase, in the same order in both lists) whose matches or written
 * files differ between `before` and `after`, with the totals of both.
 */
export function diffScores(before, after) {
  const cases = [];
  const total = { before: { hits: 0, files: 0 }, after: { hits: 0, files: 0 } };
  before.forEach((a, i) => {
    const b = after[i];
    if (!b || b.name !== a.name) throw new Error(`case ${i}: ${a.name} before, ${b?.name ?? 'none'} after: score the same cases in the same order`);
    total.before.hits += a.hits.length;
    total.before.files += a.proposalUnits;
    total.after.hits += b.hits.length;
    total.after.files += b.proposalUnits;
    const ka = new Set(a.hits.map(key));
    const kb = new Set(b.hits.map(key));
    const lost = [...ka].filter((k) => !kb.has(k));
    const gained = [...kb].filter((k) => !ka.has(k));
    if (lost.length || gained.length || a.proposalUnits !== b.proposalUnits) {
      cases.push({ name: a.name, hits: [a.hits.length, b.hits.length], files: [a.proposalUnits, b.proposalUnits], lost, gained });
    }
  });
  return { cases, total };
}

async function engine(dist) {
  const at = (rel) => import(pathToFileURL(path.resolve(dist, rel)).href);
  return { ...(await at('core/copilot-format.js')), analyze: (await at('core/analyze.js')).analyze, buildPlan: (await at('core/plan.js')).buildPlan };
}

if (isMain(import.meta.url)) {
  const [distA, distB] = process.argv.slice(2);
  if (!distA || !distB) {
    console.error('usage: node bench/eval-diff.mjs <before modules build> <after modules build>');
    process.exit(2);
  }
  const [A, B] = [await engine(distA), await engine(distB)];
  const cases = realCaseNames().map((n) => readRealCase(n));
  const d = diffScores(
    cases.map((c) => scoreRealCase(A, c)),
    cases.map((c) => scoreRealCase(B, c)),
  );
  const short = (k) => k.replace(/\.github\/instructions\//g, '');
  for (const c of d.cases) {
    console.log(`${c.name}: matches ${c.hits[0]} -> ${c.hits[1]}, written files ${c.files[0]} -> ${c.files[1]}`);
    for (const k of c.lost) console.log(`   - ${short(k)}`);
    for (const k of c.gained) console.log(`   + ${short(k)}`);
  }
  const { before, after } = d.total;
  console.log(`${cases.length} cases: ${before.hits}/${before.files} -> ${after.hits}/${after.files} (matches / written files)`);
}
