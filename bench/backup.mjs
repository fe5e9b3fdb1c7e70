#!/usr/bin/env node
/**
 * Backup and migration timings, from the BUILT code (`npm run build` first; or point
 * COPILOT_ONBOARDING_DIST at another build). Runnable alone, and imported by bench/run.mjs.
 *
 *   node bench/backup.mjs [--runs 7]
 *
 * 1. 1,000 small files (1–20 KB of Markdown-like text): the whole createBackup (hashing,
 *    archive, manifest, read-back verification) and its tar.gz step alone (package `tar`,
 *    same options) against GNU `tar czf` on the same files, measured side by side
 *    (interleaved runs). Target: createBackup within 2× of GNU tar.
 * 2. A 1 MB monolith split losslessly into 50 files by a hand-made plan: migrate (backup +
 *    apply + on-disk lossless check) and rollback. bench/migrate.mjs times the real plans;
 *    this one shows the cost at a fixed, small number of output files.
 * Medians of --runs runs after one warm-up run.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as tar from 'tar';
import { argValue, cleanupTemp, interleave, isMain, load, median, ms, tempDir } from './lib.mjs';

const sha = (b) => createHash('sha256').update(b).digest('hex');

// Deterministic pseudo-random Markdown-ish text.
function textMaker(seed0 = 42) {
  let seed = seed0;
  const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const WORDS = 'the quick brown fox jumps over lazy dog const let function return import export strict tests vitest ruff workflow'.split(' ');
  const text = (n) => {
    let s = '';
    while (s.length < n) s += rnd() < 0.08 ? `\n- ${WORDS[Math.floor(rnd() * WORDS.length)]}` : `${WORDS[Math.floor(rnd() * WORDS.length)]} `;
    return s.slice(0, n);
  };
  return { rnd, text };
}

async function built() {
  const [{ createBackup }, { migrate }, { rollback }, { planHash }, { confirmMigration }] = await Promise.all([
    load('io/backup.js'),
    load('io/apply.js'),
    load('io/rollback.js'),
    load('core/plan.js'),
    load('testing/confirm.js'),
  ]);
  const planOf = (body) => {
    const hash = planHash(body);
    return { ...body, planId: hash.slice(0, 16), sha256: hash };
  };
  return { createBackup, migrate, rollback, planOf, confirmMigration };
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

/** 1,000 files: createBackup and its tar step against GNU tar czf, interleaved. */
export async function runThousand({ runs = 7, warmup = 1, tarStep = true, log = () => {} } = {}) {
  const { createBackup, planOf } = await built();
  const t0 = performance.now();
  const { rnd, text } = textMaker(42);
  const subRuns = [];
  const tmp = tempDir('co-bench-backup-');
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
  const list = path.join(tmp, 'list.txt');
  writeFileSync(list, files.map((f) => f.rel).join('\n'));
  const out = path.join(tmp, 'out.tar.gz');
  const plan = planOf(planBody(files.map((f) => ({ op: 'delete', path: f.rel, size: 0, sha256: null, content: null, previousSha256: sha(f.body) }))));
  log(`  backup: 1,000 files, ${(totalBytes / 2 ** 20).toFixed(1)} MiB (written in ${ms(performance.now() - t0)} ms), ${warmup} warm-up + ${runs} runs`);
  const r = await interleave(
    {
      gnuTar: { fn: () => execFileSync('tar', ['czf', out, '-C', root, '-T', list]) },
      ...(tarStep ? { tarStep: { fn: () => tar.c({ gzip: true, cwd: root, file: out, portable: true, noDirRecurse: true }, files.map((f) => f.rel)) } } : {}),
      createBackup: {
        setup: (i) => {
          rmSync(path.join(root, '.copilot-state'), { recursive: true, force: true });
          return `bench-${i}`;
        },
        // createBackup's crash points as phase marks: read + hash + tar + gzip + archive written /
        // manifest written / read-back verified (the in-memory check overlaps the writes).
        fn: async (id) => {
          const t0 = performance.now();
          const at = {};
          await createBackup(root, { migrationId: id, plan, crashAt: (point) => (at[point] = performance.now() - t0) });
          subRuns.push(at);
        },
      },
    },
    { runs, warmup },
  );
  const sub = {};
  for (const at of subRuns.slice(warmup)) {
    let prev = 0;
    for (const [point, t] of Object.entries(at).sort((a, b) => a[1] - b[1])) {
      (sub[point] ??= []).push(t - prev);
      prev = t;
    }
  }
  const phases = Object.entries(sub).map(([k, v]) => `${k} ${ms(median(v))}`).join(' / ');
  const ratio = r.createBackup.wall / r.gnuTar.wall;
  const rows = [
    {
      case: 'backup (createBackup)',
      input: `1,000 files, ${(totalBytes / 2 ** 20).toFixed(1)} MiB`,
      median: r.createBackup.wall,
      cpu: r.createBackup.cpu,
      value: `${ms(r.createBackup.wall)} ms = ${ratio.toFixed(2)}× GNU tar`,
      target: '≤ 2× GNU tar czf',
      status: ratio <= 2 ? 'PASS' : 'MISS',
      note: `GNU tar czf ${ms(r.gnuTar.wall)} ms${r.tarStep ? `; tar.gz step alone (package tar) ${ms(r.tarStep.wall)} ms = ${(r.tarStep.wall / r.gnuTar.wall).toFixed(2)}×; the rest is hashing, manifest and read-back verification` : ''}; ms up to each crash point: ${phases}`,
      detail: { ...r, totalBytes, ratio },
    },
  ];
  return { rows, totalBytes, ...r };
}

/** A 1 MB monolith split into 50 files by a hand-made plan: migrate and rollback. */
export async function runFifty({ runs = 7, log = () => {} } = {}) {
  const { migrate, rollback, planOf, confirmMigration } = await built();
  const { text } = textMaker(4242);
  const tmp = tempDir('co-bench-fifty-');
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
  const plan = planOf(planBody(operations, [{ path: MONO, kind: 'copilot-repo', size: mono.length, sha256: sha(mono) }], { outputs, coveredSources: [MONO], ok: true }));
  let n = 0;
  const ws = () => {
    const r = path.join(tmp, `mono-${n++}`);
    mkdirSync(path.join(r, '.github'), { recursive: true });
    writeFileSync(path.join(r, MONO), mono);
    return r;
  };
  const noCrash = () => undefined;
  log(`  migrate/rollback, 1 MiB hand-made plan of 50 files, 1 warm-up + ${runs} runs`);
  const r = await interleave(
    {
      migrate: { setup: ws, fn: (root) => migrate(root, plan, { migrationId: 'bench', crashAt: noCrash }), teardown: (root) => rmSync(root, { recursive: true, force: true }) },
      rollback: {
        setup: async () => {
          const root = ws();
          await confirmMigration(root, plan, 'bench'); // (rollback acts only on a confirmed migration)
          await migrate(root, plan, { migrationId: 'bench', crashAt: noCrash });
          return root;
        },
        fn: (root) => rollback(root, 'bench', { crashAt: noCrash }),
        teardown: (root) => rmSync(root, { recursive: true, force: true }),
      },
    },
    { runs, warmup: 1 },
  );
  const rows = [
    { case: 'migrate (backup + apply + verify)', input: '1 MiB, hand-made plan → 50 files', median: r.migrate.wall, cpu: r.migrate.cpu, target: null, status: 'info', note: 'same size, few files: shows the per-file cost', detail: r.migrate },
    { case: 'rollback', input: '1 MiB, hand-made plan (50 files)', median: r.rollback.wall, cpu: r.rollback.cpu, target: null, status: 'info', note: '', detail: r.rollback },
  ];
  return { rows, ...r };
}

if (isMain(import.meta.url)) {
  const RUNS = Math.max(5, Number(argValue(process.argv, '--runs', 7)));
  try {
    const a = await runThousand({ runs: RUNS });
    const b = await runFifty({ runs: RUNS });
    const f = (x) => `${x.toFixed(1).padStart(7)} ms`;
    console.log(`medians of ${RUNS} runs after a warm-up; node ${process.version}; ${os.cpus().length} CPUs; temp dir ${os.tmpdir()}`);
    console.log(`1,000 files, ${(a.totalBytes / 1024 / 1024).toFixed(1)} MB:`);
    console.log(`  GNU tar czf                    ${f(a.gnuTar.wall)}`);
    console.log(`  createBackup tar step (tar.c)  ${f(a.tarStep.wall)}   ratio ${(a.tarStep.wall / a.gnuTar.wall).toFixed(2)}x`);
    console.log(`  createBackup whole             ${f(a.createBackup.wall)}   ratio ${(a.createBackup.wall / a.gnuTar.wall).toFixed(2)}x  (target <= 2x) ${a.createBackup.wall / a.gnuTar.wall <= 2 ? 'OK' : 'OVER'}`);
    console.log(`  ${a.rows[0].note}`);
    console.log(`1 MB monolith split into 50 files (hand-made plan):`);
    console.log(`  migrate (backup+apply+verify)  ${f(b.migrate.wall)}`);
    console.log(`  rollback                       ${f(b.rollback.wall)}`);
  } finally {
    cleanupTemp();
  }
}
