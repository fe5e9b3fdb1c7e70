/**
 * Shared helpers for the benchmark cases (bench/run.mjs and the case files):
 * medians, timing loops (wall clock and CPU time of this process), the built code's
 * location, temp folders, machine information and plain-text / Markdown tables.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const REPO_DIR = path.resolve(BENCH_DIR, '..');
/** The built code (`npm run build`); COPILOT_ONBOARDING_DIST points at another build. */
export const DIST = process.env.COPILOT_ONBOARDING_DIST ? path.resolve(process.env.COPILOT_ONBOARDING_DIST) : path.join(REPO_DIR, 'dist');
/** The cases that roll back record a confirmation with a per-user trace key: a throwaway one, never the user's own. */
process.env.COPILOT_ONBOARDING_CONFIG_DIR ||= mkdtempSync(path.join(os.tmpdir(), 'co-bench-config-'));
/** The corpus vendored with the tests (test/fixtures/corpus); COPILOT_ONBOARDING_CORPUS names a larger one. */
export const VENDORED_CORPUS_DIR = path.join(REPO_DIR, 'test/fixtures/corpus');
export const CORPUS_DIR = process.env.COPILOT_ONBOARDING_CORPUS ? path.resolve(process.env.COPILOT_ONBOARDING_CORPUS) : undefined;

/** A corpus file by name: from COPILOT_ONBOARDING_CORPUS when it holds it, else the vendored copy. */
export function corpusPath(name) {
  const outside = CORPUS_DIR && path.join(CORPUS_DIR, name);
  return outside && existsSync(outside) ? outside : path.join(VENDORED_CORPUS_DIR, name);
}
export const REPO_WIDE = '.github/copilot-instructions.md';

/** Import a module of the build, e.g. `await load('io/snapshot.js')`. */
export function load(rel) {
  return import(pathToFileURL(path.join(DIST, rel)).href);
}

/** True when `importMetaUrl` is the script node was started with (a case file run standalone). */
export function isMain(importMetaUrl) {
  return process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(importMetaUrl);
}

export function median(xs) {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** `--name value` from argv, else the default. */
export function argValue(argv, name, fallback) {
  const i = argv.indexOf(name);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : fallback;
}

/**
 * Time an async or sync function: `warmup` untimed runs, then `runs` timed runs.
 * `setup(i)` runs before each run, untimed (e.g. a fresh copy of a workspace); its value is
 * passed to `fn`. `teardown(ctx)` runs after, untimed. `fn` may return an object of phase
 * timestamps ({name: ms since the run started}) through `mark` (see below).
 * Returns {wall, cpu} medians in ms, the raw samples, and the median of each phase.
 *
 * No forced gc between runs by default: the concurrent GC threads it wakes would be billed to
 * the next run. CPU time is this process's user+system time, including libuv's thread pool
 * (fs, zlib, crypto) and GC threads, so on a multi-core machine it can exceed wall time.
 */
export async function measure(fn, { runs, warmup = 1, setup, teardown } = {}) {
  return (await interleave({ only: { fn, setup, teardown } }, { runs, warmup })).only;
}

/**
 * Several contenders measured side by side: run i of every contender, then run i+1 of every
 * contender, so that a change in machine load hits all of them alike (the ratios stay fair).
 * contenders: {name: {fn, setup?, teardown?}}. Returns {name: result as for measure()},
 * each with `first` = wall ms of its first (warm-up) run.
 */
export async function interleave(contenders, { runs, warmup = 1 } = {}) {
  const state = Object.fromEntries(Object.keys(contenders).map((k) => [k, { wall: [], cpu: [], phases: {}, first: NaN }]));
  for (let i = 0; i < warmup + runs; i++) {
    for (const [name, { fn, setup, teardown }] of Object.entries(contenders)) {
      const st = state[name];
      const ctx = setup ? await setup(i) : undefined;
      const marks = [];
      const mark = (label) => marks.push([label, performance.now()]);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await fn(ctx, mark, i);
      const t1 = performance.now();
      const c1 = process.cpuUsage(c0);
      if (teardown) await teardown(ctx);
      if (i === 0) st.first = t1 - t0;
      if (i < warmup) continue;
      st.wall.push(t1 - t0);
      st.cpu.push((c1.user + c1.system) / 1e3);
      let prev = t0;
      for (const [label, t] of marks) {
        (st.phases[label] ??= []).push(t - prev);
        prev = t;
      }
    }
  }
  return Object.fromEntries(
    Object.entries(state).map(([name, st]) => [
      name,
      {
        wall: median(st.wall),
        cpu: median(st.cpu),
        first: st.first,
        samples: st.wall,
        cpuSamples: st.cpu,
        phases: Object.fromEntries(Object.entries(st.phases).map(([k, v]) => [k, median(v)])),
      },
    ]),
  );
}

/** A fresh temp folder; `cleanup()` removes every folder made through this helper. */
const made = [];
export function tempDir(prefix = 'co-bench-') {
  const d = mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(d);
  return d;
}
export function cleanupTemp() {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function loadAverage() {
  return os.loadavg().map((x) => x.toFixed(2)).join(' ');
}

/** CPU model, cores, memory, OS, Node version, load average, temp folder's file system. */
export function machineInfo() {
  const cpus = os.cpus();
  let model = cpus[0]?.model?.trim() ?? 'unknown';
  try {
    // os.cpus() can report a bare "AMD EPYC" in VMs; lscpu sometimes knows more.
    const ls = execFileSync('lscpu', [], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const m = /^Model name:\s*(.+)$/m.exec(ls);
    if (m && m[1].trim().length > model.length) model = m[1].trim();
  } catch {
    /* no lscpu */
  }
  let fs = '';
  try {
    fs = execFileSync('df', ['-T', os.tmpdir()], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n').pop().split(/\s+/)[1] ?? '';
  } catch {
    /* no df */
  }
  let gnuTar = '';
  try {
    gnuTar = execFileSync('tar', ['--version'], { encoding: 'utf8' }).split('\n')[0];
  } catch {
    /* no tar */
  }
  const pkg = JSON.parse(readFileSync(path.join(REPO_DIR, 'package.json'), 'utf8'));
  let commit = '';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: REPO_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    // dist/ is built from the working tree: say so when server/ differs from the commit.
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'server', 'package.json', 'package-lock.json'], { cwd: REPO_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (dirty) commit += ' + uncommitted changes in server/';
  } catch {
    /* not a checkout */
  }
  return {
    cpu: model,
    cores: cpus.length,
    memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    tmpdir: `${os.tmpdir()}${fs ? ` (${fs})` : ''}`,
    gnuTar,
    version: pkg.version,
    commit,
  };
}

export const ms = (x) => (Number.isFinite(x) ? (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)) : '—');
export const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;
export const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

/** A plain-text table for the terminal. rows: arrays of cells; header: array of titles. */
export function textTable(header, rows) {
  const all = [header, ...rows].map((r) => r.map((c) => String(c ?? '')));
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const line = (r) => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  return [line(all[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n');
}

/** A GitHub Markdown table. */
export function mdTable(header, rows) {
  const esc = (c) => String(c ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [`| ${header.map(esc).join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`)].join('\n');
}

const sourceMaps = new Map();
/** `dist/core/plan.js` line/column (0-based) -> `server/src/core/plan.ts:123` through the build's source map. */
function originalPosition(file, line, column) {
  const fallback = `${file}:${line + 1}`;
  if (!file.endsWith('.js')) return fallback;
  if (!sourceMaps.has(file)) {
    let map = null;
    try {
      map = new SourceMap(JSON.parse(readFileSync(path.join(REPO_DIR, `${file}.map`), 'utf8')));
    } catch {
      map = null;
    }
    sourceMaps.set(file, map);
  }
  const map = sourceMaps.get(file);
  const e = map?.findEntry(line, column);
  if (!e || !e.originalSource) return fallback;
  const src = e.originalSource.startsWith('file://') ? fileURLToPath(e.originalSource) : path.resolve(path.dirname(path.join(REPO_DIR, file)), e.originalSource);
  return `${path.relative(REPO_DIR, src)}:${e.originalLine + 1}`;
}

/** Our build's files, as profileTop names them (relative to the repository): the inclusive shares count only these. */
const OURS = `${path.relative(REPO_DIR, DIST)}/`;

/**
 * Where the CPU time of `fn` goes: runs it `runs` times under the V8 sampling profiler
 * (node:inspector, 100 µs interval). Returns {self, inclusive}: the functions with the most
 * self time (any code, GC included), and the functions of the build (DIST) with the most
 * inclusive time (time with the function anywhere on the stack), each as {name, where, pct}
 * of all sampled time; `where` is relative to the repository. Used to explain a miss.
 */
export async function profileTop(fn, { runs = 3, top = 8 } = {}) {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  try {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    for (let i = 0; i < runs; i++) await fn();
    const { profile } = await session.post('Profiler.stop');
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    const keyOf = (id) => {
      const { functionName, url, lineNumber, columnNumber } = byId.get(id).callFrame;
      const file = url ? (url.startsWith('file://') ? path.relative(REPO_DIR, fileURLToPath(url)) : url) : '';
      const where = file ? originalPosition(file, lineNumber, columnNumber) : '';
      return { key: `${functionName || '(anonymous)'}\t${where}`, name: functionName, file };
    };
    const self = new Map();
    const incl = new Map();
    let total = 0;
    profile.samples.forEach((id, i) => {
      const t = profile.timeDeltas[i + 1] ?? 0; // the delta of the next sample closes this one
      const leaf = keyOf(id);
      if (leaf.name === '(idle)' || leaf.name === '(program)') return;
      total += t;
      self.set(leaf.key, (self.get(leaf.key) ?? 0) + t);
      const seen = new Set();
      for (let n = id; n !== undefined; n = parent.get(n)) {
        const k = keyOf(n);
        if (!k.file.startsWith(OURS) || seen.has(k.key)) continue;
        seen.add(k.key);
        incl.set(k.key, (incl.get(k.key) ?? 0) + t);
      }
    });
    const list = (m) =>
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, top)
        .map(([k, t]) => {
          const [name, where] = k.split('\t');
          return { name, where, pct: (100 * t) / total };
        });
    return { self: list(self), inclusive: list(incl), totalMs: total / 1000, runs };
  } finally {
    await session.post('Profiler.disable').catch(() => undefined);
    session.disconnect();
  }
}

/**
 * A fixture folder built once and reused by later runs: `$TMPDIR/copilot-onboarding-bench-cache/
 * <name>-<key>`, where the key hashes `keyFiles` (the code that writes and reads the fixture)
 * and `keyExtra`. `build(dir)` fills a fresh folder (renamed into place when complete);
 * the caller checks the fixture before timing either way. BENCH_FRESH_FIXTURES=1 rebuilds.
 * Returns {dir, cached}.
 */
export async function cachedFixture(name, { keyFiles = [], keyExtra = '' }, build) {
  const h = createHash('sha256').update(keyExtra);
  for (const f of keyFiles) h.update(`\0${f}\0`).update(readFileSync(f));
  const base = path.join(os.tmpdir(), 'copilot-onboarding-bench-cache');
  const dir = path.join(base, `${name}-${h.digest('hex').slice(0, 16)}`);
  const fresh = process.env.BENCH_FRESH_FIXTURES === '1';
  if (!fresh && existsSync(path.join(dir, '.complete'))) return { dir, cached: true };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  const tmp = mkdtempSync(path.join(base, `.${name}-`));
  try {
    await build(tmp);
    writeFileSync(path.join(tmp, '.complete'), new Date().toISOString());
    renameSync(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  return { dir, cached: false };
}
