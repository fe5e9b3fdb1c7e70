#!/usr/bin/env node
/**
 * Backup and migration timings, from the BUILT code (`npm run build` first; or point
 * COPILOT_ONBOARDING_DIST at another build).
 *
 *   node bench/backup.mjs [--runs 7]
 *
 * 1. 1,000 small files (1–20 KB of Markdown-like text): the tar.gz step of createBackup
 *    (package `tar`, same options) against GNU `tar czf` on the same files, and the whole
 *    createBackup (hashing, archive, manifest, read-back verification). Target: within 2x.
 * 2. A 1 MB monolith split losslessly into 50 files: migrate (backup + apply + on-disk
 *    lossless check) — target ≤ 300 ms median — and rollback — target ≤ 150 ms.
 * Medians of --runs runs after one warm-up run.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as tar from 'tar';

const dist = process.env.COPILOT_ONBOARDING_DIST ?? path.resolve(import.meta.dirname, '../dist');
const load = (rel) => import(pathToFileURL(path.join(dist, rel)).href);
const { createBackup } = await load('io/backup.js');
const { migrate, rollback } = await load('io/migration.js');
const { canonicalJson } = await load('core/canonical.js');

const runsArg = process.argv.indexOf('--runs');
const RUNS = Math.max(5, runsArg > 0 ? Number(process.argv[runsArg + 1]) : 7);
const sha = (b) => createHash('sha256').update(b).digest('hex');
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
async function time(fn, setup = async () => undefined) {
  const out = [];
  for (let i = 0; i <= RUNS; i++) {
    const ctx = await setup(i);
    const t = performance.now();
    await fn(ctx, i);
    const ms = performance.now() - t;
    if (i > 0) out.push(ms); // run 0 is the warm-up
  }
  return median(out);
}

// Deterministic pseudo-random Markdown-ish text.
let seed = 42;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const WORDS = 'the quick brown fox jumps over lazy dog const let function return import export strict tests vitest ruff workflow'.split(' ');
function text(n) {
  let s = '';
  while (s.length < n) s += rnd() < 0.08 ? `\n- ${WORDS[Math.floor(rnd() * WORDS.length)]}` : `${WORDS[Math.floor(rnd() * WORDS.length)]} `;
  return s.slice(0, n);
}

function planOf(body) {
  const hash = sha(canonicalJson(body));
  return { ...body, planId: hash.slice(0, 16), sha256: hash };
}
const planBody = (operations, sources = [], lossless = { outputs: [], coveredSources: [], ok: true }) => ({
  format: 'copilot-onboarding/plan@1',
  pattern: 'structured',
  sources,
  sections: [],
  operations,
  problems: [],
  risk: 'low',
  riskReasons: [],
  overrides: [],
  lossless,
});

const tmp = mkdtempSync(path.join(os.tmpdir(), 'co-bench-'));
try {
  // ---------------------------------------------------------------- 1. 1,000 small files
  const root = path.join(tmp, 'thousand');
  const files = [];
  for (let i = 0; i < 1000; i++) {
    const rel = `docs/d${i % 25}/f${i}.md`;
    const body = Buffer.from(text(1024 + Math.floor(rnd() * 19 * 1024)));
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), body);
    files.push({ rel, body });
  }
  const totalBytes = files.reduce((n, f) => n + f.body.length, 0);
  writeFileSync(path.join(tmp, 'list.txt'), files.map((f) => f.rel).join('\n'));
  const out = path.join(tmp, 'out.tar.gz');

  const nodeTar = await time(() => tar.c({ gzip: true, cwd: root, file: out, portable: true, noDirRecurse: true }, files.map((f) => f.rel)));
  const gnuTar = await time(() => execFileSync('tar', ['czf', out, '-C', root, '-T', path.join(tmp, 'list.txt')]));
  const plan = planOf(planBody(files.map((f) => ({ op: 'delete', path: f.rel, size: 0, sha256: null, content: null, previousSha256: sha(f.body) }))));
  const full = await time(
    (id) => createBackup(root, { migrationId: id, plan }),
    async (i) => {
      rmSync(path.join(root, '.copilot-state'), { recursive: true, force: true });
      return `bench-${i}`;
    },
  );

  // ---------------------------------------------------------------- 2. 1 MB monolith -> 50 files
  const MONO = '.github/copilot-instructions.md';
  const sections = Array.from({ length: 50 }, (_, i) => Buffer.from(`## Section ${i}\n\n${text(1024 * 1024 / 50 - 20)}\n\n`));
  const mono = Buffer.concat(sections);
  const outputs = [];
  const operations = [];
  let offset = 0;
  sections.forEach((sec, i) => {
    const fm = i === 0 ? Buffer.alloc(0) : Buffer.from(`---\napplyTo: "src/s${i}/**"\ndescription: Section ${i}\n---\n`);
    const bytes = Buffer.concat([fm, sec]);
    const p = i === 0 ? MONO : `.github/instructions/section-${i}.instructions.md`;
    outputs.push({
      path: p,
      pieces: [{ sourcePath: MONO, sourceStart: offset, sourceEnd: offset + sec.length, outputStart: fm.length, outputEnd: bytes.length }],
      generated: fm.length ? [{ outputStart: 0, outputEnd: fm.length, what: 'front-matter' }] : [],
    });
    operations.push({ op: i === 0 ? 'modify' : 'create', path: p, size: bytes.length, sha256: sha(bytes), content: bytes.toString('utf8'), previousSha256: i === 0 ? sha(mono) : null });
    offset += sec.length;
  });
  const bigPlan = planOf(planBody(operations, [{ path: MONO, kind: 'copilot-repo', size: mono.length, sha256: sha(mono) }], { outputs, coveredSources: [MONO], ok: true }));
  const ws = (i) => {
    const r = path.join(tmp, `mono-${i}`);
    mkdirSync(path.join(r, '.github'), { recursive: true });
    writeFileSync(path.join(r, MONO), mono);
    return r;
  };
  const mig = await time((r) => migrate(r, bigPlan, { migrationId: 'bench', crashAt: () => undefined }), async (i) => ws(i));
  const rb = await time(
    (r) => rollback(r, 'bench', { crashAt: () => undefined }),
    async (i) => {
      const r = ws(`rb-${i}`);
      await migrate(r, bigPlan, { migrationId: 'bench', crashAt: () => undefined });
      return r;
    },
  );

  const f = (ms) => `${ms.toFixed(1).padStart(7)} ms`;
  console.log(`medians of ${RUNS} runs after a warm-up; node ${process.version}; ${os.cpus().length} CPUs; temp dir ${os.tmpdir()}`);
  console.log(`1,000 files, ${(totalBytes / 1024 / 1024).toFixed(1)} MB:`);
  console.log(`  GNU tar czf                    ${f(gnuTar)}`);
  console.log(`  createBackup tar step (tar.c)  ${f(nodeTar)}   ratio ${(nodeTar / gnuTar).toFixed(2)}x  (target <= 2x) ${nodeTar / gnuTar <= 2 ? 'OK' : 'OVER'}`);
  console.log(`  createBackup whole             ${f(full)}   ratio ${(full / gnuTar).toFixed(2)}x  (hash + tar + manifest + read-back verify)`);
  console.log(`1 MB monolith split into 50 files:`);
  console.log(`  migrate (backup+apply+verify)  ${f(mig)}   (target <= 300 ms) ${mig <= 300 ? 'OK' : 'OVER'}`);
  console.log(`  rollback                       ${f(rb)}   (target <= 150 ms) ${rb <= 150 ? 'OK' : 'OVER'}`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
