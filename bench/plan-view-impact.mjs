#!/usr/bin/env node
/**
 * Case: what the MCP App plan view costs the server's start. Builds the server twice from the
 * same sources with the product's esbuild options (scripts/bundle-options.mjs, code splitting):
 * as it ships, and with the `registerPlanView(mcp)` call taken out of mcp/server.ts and the page
 * emptied (so the view's resource and HTML are gone; the plan data in propose's result stays). Then, in one
 * run, interleaved spawn for spawn: the time from spawn to the line answering `initialize`
 * (bench/cold-start.mjs timeInitialize), and the bytes of dist/ each build holds and each `serve`
 * process reads before it answers (every file the ESM loader loads, logged by a module hook
 * in one extra spawn per build). Prints a table and the load average.
 *
 *   node bench/plan-view-impact.mjs [--runs 15]
 */
import { readFileSync, readdirSync, statSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { bundleOptions } from '../scripts/bundle-options.mjs';
import { timeInitialize } from './cold-start.mjs';
import { BENCH_DIR, REPO_DIR, argValue, cleanupTemp, loadAverage, median, ms, kib, tempDir, textTable } from './lib.mjs';

const OUT = path.join(BENCH_DIR, '.out/plan-view');
const HTML_MARK = '<title>Plan view</title>';

/** esbuild plugin: mcp/server.ts without the registerPlanView call. */
const withoutView = {
  name: 'without-plan-view',
  setup(b) {
    b.onLoad({ filter: /server\/src\/mcp\/server\.ts$/ }, (args) => {
      const src = readFileSync(args.path, 'utf8');
      if (!src.includes('registerPlanView(mcp);')) throw new Error('mcp/server.ts no longer calls registerPlanView(mcp); update bench/plan-view-impact.mjs');
      return { contents: src.replace('registerPlanView(mcp);', ''), loader: 'ts' };
    });
    // esbuild keeps a chunk for every import() it saw, even in code it then drops: empty the page too.
    b.onLoad({ filter: /server\/src\/mcp\/plan-view-html\.ts$/ }, () => ({ contents: "export const PLAN_VIEW_HTML = '';", loader: 'ts' }));
  },
};

async function buildVariant(name, plugins) {
  const outdir = path.join(OUT, name);
  rmSync(outdir, { recursive: true, force: true });
  await build({ ...bundleOptions, absWorkingDir: REPO_DIR, entryPoints: { index: 'server/src/index.ts' }, outdir, splitting: true, chunkNames: 'chunks/[name]-[hash]', plugins });
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else files.push(p);
    }
  };
  walk(outdir);
  const total = files.reduce((n, f) => n + statSync(f).size, 0);
  const htmlIn = files.filter((f) => readFileSync(f, 'utf8').includes(HTML_MARK)).map((f) => path.relative(outdir, f));
  return { name, entry: path.join(outdir, 'index.js'), outdir, total, files: files.length, htmlIn };
}

/** The dist files a serve process loads before it answers initialize (then stdin ends and it exits). */
async function loadedAtStart(variant, workspace) {
  const log = path.join(OUT, `${variant.name}-loaded.txt`);
  rmSync(log, { force: true });
  const hooks = path.join(OUT, 'log-hooks.mjs');
  writeFileSync(hooks, `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { if (url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }\n`);
  const register = path.join(OUT, 'log-register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  await timeInitialize(['--import', pathToFileURL(register).href, variant.entry, 'serve', '--workspace', workspace]);
  const urls = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))].map((u) => fileURLToPath(u)).filter((p) => p.startsWith(variant.outdir));
  return { files: urls.length, bytes: urls.reduce((n, f) => n + statSync(f).size, 0), html: urls.some((f) => readFileSync(f, 'utf8').includes(HTML_MARK)) };
}

export async function run({ runs = 15, log = () => {} } = {}) {
  mkdirSync(OUT, { recursive: true });
  const workspace = tempDir('co-bench-planview-');
  const variants = [await buildVariant('with-view', []), await buildVariant('without-view', [withoutView])];
  if (variants[1].htmlIn.length) throw new Error(`the build without the view still holds its HTML (${variants[1].htmlIn})`);
  for (const v of variants) v.start = await loadedAtStart(v, workspace);
  const load = loadAverage();
  log(`  plan view impact: ${runs} spawns each after one warm-up, interleaved; load average ${load}`);
  const times = Object.fromEntries(variants.map((v) => [v.name, []]));
  for (let i = 0; i <= runs; i++) {
    for (const v of i % 2 ? variants : [...variants].reverse()) {
      const t = await timeInitialize([v.entry, 'serve', '--workspace', workspace]);
      if (i > 0) times[v.name].push(t);
    }
  }
  for (const v of variants) v.median = median(times[v.name]);
  return { runs, load, loadAfter: loadAverage(), variants, times };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const r = await run({ runs: Math.max(5, Number(argValue(process.argv, '--runs', 15))), log: console.log });
    console.log(
      textTable(
        ['build', 'dist bytes', 'HTML in', 'read at serve start', 'HTML read at start', 'initialize, median'],
        r.variants.map((v) => [v.name, `${kib(v.total)} (${v.files} files)`, v.htmlIn.join(', ') || '—', `${kib(v.start.bytes)} (${v.start.files} files)`, v.start.html ? 'yes' : 'no', `${ms(v.median)} ms`]),
      ),
    );
    const [a, b] = r.variants;
    console.log(`difference: ${a.total - b.total} B in dist, ${a.start.bytes - b.start.bytes} B read at start, ${ms(a.median - b.median)} ms to initialize (${r.runs} spawns each); load average before ${r.load}, after ${r.loadAfter}`);
  } finally {
    cleanupTemp();
  }
}
