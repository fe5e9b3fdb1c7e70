#!/usr/bin/env node
/**
 * Case: server cold start to the `initialize` answer. Spawns `node dist/index.js serve
 * --workspace <temp dir>`, writes an initialize request on stdin at once, and times from the
 * spawn until the line with the response (id 1) arrives on stdout. Side by side, spawn for
 * spawn (interleaved): bench/minimal-server.mjs (the SDK's McpServer + StdioServerTransport
 * with one tool), bundled with the same esbuild options as the product (scripts/bundle-options.mjs)
 * so the two compare like for like, and a bare node process that answers the first stdin line
 * with a fixed line (the floor: node start-up and the pipes).
 *
 *   npm run build && node bench/cold-start.mjs [--runs 15]
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { bundleOptions } from '../scripts/bundle-options.mjs';
import { BENCH_DIR, REPO_DIR, argValue, cleanupTemp, interleave, isMain, kib, loadAverage, median, ms, tempDir, textTable } from './lib.mjs';

const INITIALIZE =
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } } }) + '\n';

const BARE = `process.stdin.once('data', () => { process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{}}\\n'); process.exit(0); });`;

/** Spawn, send initialize, resolve with ms until the id-1 response line; then end stdin and wait for exit. */
export function timeInitialize(args, { cwd } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let buf = '';
    let elapsed = null;
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no initialize answer within 30 s from ${args.join(' ')}: ${stderr}`));
    }, 30_000);
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.on('data', (d) => {
      if (elapsed !== null) return;
      buf += d;
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let msg;
        try {
          msg = JSON.parse(line);
        } catch {
          continue;
        }
        if (msg.id === 1) {
          elapsed = performance.now() - t0;
          if (!msg.result) reject(new Error(`initialize failed: ${line}`));
          child.stdin.end();
          break;
        }
      }
    });
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      if (elapsed === null) reject(new Error(`exited before answering: ${stderr}`));
      else resolve(elapsed);
    });
    child.stdin.write(INITIALIZE);
  });
}

/**
 * The files a process loads through the ESM loader (every `file:` URL, logged by a module hook in
 * one extra, untimed spawn) and their bytes: what a command reads and compiles before it runs.
 * `timed` is timeInitialize or timeExit; `args` are the node arguments after the hook's.
 */
async function loadedFiles(timed, args, opts) {
  const dir = tempDir('co-bench-loads-');
  const log = path.join(dir, 'loaded.txt');
  writeFileSync(log, '');
  const hooks = path.join(dir, 'hooks.mjs');
  writeFileSync(hooks, `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { if (url.startsWith('file:')) appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }\n`);
  const register = path.join(dir, 'register.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  await timed(['--import', pathToFileURL(register).href, ...args], opts);
  const files = [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))].map((u) => fileURLToPath(u));
  return { files: files.length, bytes: files.reduce((n, f) => n + statSync(f).size, 0) };
}
const loadsNote = (l) => `${l.files} file${l.files === 1 ? '' : 's'}, ${kib(l.bytes)}`;

/** bench/minimal-server.mjs bundled as the product is: bench/.out/minimal-server/index.js. */
export async function bundleMinimalServer() {
  const outfile = path.join(BENCH_DIR, '.out/minimal-server/index.js');
  await build({ ...bundleOptions, absWorkingDir: REPO_DIR, entryPoints: [path.join(BENCH_DIR, 'minimal-server.mjs')], outfile });
  return outfile;
}

export async function run({ runs = 15, warmup = 1, log = () => {} } = {}) {
  const workspace = tempDir('co-bench-serve-');
  const minimal = await bundleMinimalServer();
  // What ships: the bundled bin (COPILOT_ONBOARDING_DIST may point the other cases at a per-module build).
  const entry = path.join(REPO_DIR, 'dist/index.js');
  log(`  cold start: ${runs} spawns each after ${warmup} warm-up spawn(s), interleaved`);
  // The spawn is what is timed, so each fn records the child's own measurement through a mark.
  const contenders = {
    ours: ['serve', [entry, 'serve', '--workspace', workspace]],
    minimal: ['minimal', [minimal]],
    bare: ['bare', ['-e', BARE]],
  };
  const times = { ours: [], minimal: [], bare: [] };
  await interleave(
    Object.fromEntries(
      Object.entries(contenders).map(([k, [, args]]) => [
        k,
        {
          fn: async (_ctx, _mark, i) => {
            const t = await timeInitialize(args);
            if (i >= warmup) times[k].push(t);
          },
        },
      ]),
    ),
    { runs, warmup },
  );
  const load = loadAverage();
  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  const ratio = m.ours / m.minimal;
  const loads = { ours: await loadedFiles(timeInitialize, contenders.ours[1]), minimal: await loadedFiles(timeInitialize, contenders.minimal[1]) };
  const rows = [
    {
      case: 'cold start to initialize',
      input: 'dist/index.js serve vs minimal SDK server, both bundled',
      median: m.ours,
      value: `${ms(m.ours)} ms = ${ratio.toFixed(2)}× minimal`,
      target: '≤ 1.15× minimal',
      status: ratio <= 1.15 ? 'PASS' : 'MISS',
      note: `minimal SDK server (McpServer + stdio, 1 tool, bundled the same way) ${ms(m.minimal)} ms; bare node answering one line ${ms(m.bare)} ms; ours − minimal = ${ms(m.ours - m.minimal)} ms; ${runs} spawns each; loaded before the answer: ours ${loadsNote(loads.ours)}, minimal ${loadsNote(loads.minimal)}; load average ${load}`,
      detail: { ...m, ratio, loads, load, samples: times },
    },
  ];
  rows.push(...(await cliAnalyze({ runs, warmup, entry, log })));
  return { rows, medians: m, ratio, samples: times };
}

/** Spawn to exit, in ms (the exit code must be `ok`). */
function timeExit(args, { cwd, ok = [0] } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('exit', (code) => (ok.includes(code) ? resolve(performance.now() - t0) : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr}`))));
  });
}

/**
 * The read-only CLI as a CI job runs it: `copilot-onboarding analyze --json` as a whole process
 * on the bundled example and on the largest corpus-sized file, interleaved with `node -e ''`
 * (the floor: node's own start and exit) and with Ruler's `apply --dry-run` on the same example
 * (its instructions copied to `.ruler/instructions.md`; Ruler as its package ships, a
 * development dependency pinned in package.json), the tool people run today for their
 * instruction files.
 */
async function cliAnalyze({ runs, warmup, entry, log }) {
  const example = tempDir('co-bench-cli-example-');
  cpSync(path.join(REPO_DIR, 'examples/orders-service'), example, { recursive: true });
  mkdirSync(path.join(example, '.ruler'));
  cpSync(path.join(example, '.github/copilot-instructions.md'), path.join(example, '.ruler/instructions.md'));
  const ruler = path.join(REPO_DIR, 'node_modules/@intellectronica/ruler/dist/cli/index.js');
  const large = tempDir('co-bench-cli-large-');
  mkdirSync(path.join(large, '.github'), { recursive: true });
  cpSync(path.join(REPO_DIR, 'test/fixtures/corpus/modelcontextprotocol__inspector__AGENTS.md'), path.join(large, '.github/copilot-instructions.md'));
  log(`  CLI analyze: ${runs} runs each after ${warmup} warm-up run(s), interleaved with node -e ''`);
  const contenders = {
    example: [entry, 'analyze', '--json', '--workspace', example],
    large: [entry, 'analyze', '--json', '--workspace', large],
    ruler: [ruler, 'apply', '--dry-run'],
    floor: ['-e', ''],
  };
  const times = { example: [], large: [], ruler: [], floor: [] };
  await interleave(
    Object.fromEntries(Object.entries(contenders).map(([k, args]) => [k, { fn: async (_ctx, _mark, i) => { const t = await timeExit(args, { cwd: example }); if (i >= warmup) times[k].push(t); } }])),
    { runs, warmup },
  );
  const load = loadAverage();
  const m = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
  const loads = await loadedFiles(timeExit, contenders.example, { cwd: example });
  const floorNote = (v) => `node -e '' ${ms(m.floor)} ms in the same runs (${(v / m.floor).toFixed(2)}× the floor); ${runs} runs each`;
  const ratio = m.example / m.ruler;
  return [
    { case: 'CLI analyze, whole process', input: 'bundled example vs Ruler apply --dry-run on it', median: m.example, value: `${ms(m.example)} ms = ${ratio.toFixed(2)}× Ruler`, target: '≤ 0.6× Ruler', status: ratio <= 0.6 ? 'PASS' : 'MISS', note: `Ruler 0.3.44 apply --dry-run ${ms(m.ruler)} ms; ${floorNote(m.example)}; analyze loads ${loadsNote(loads)}; load average ${load}`, detail: { ...m, ratio, loads, load, samples: times } },
    { case: 'CLI analyze, whole process', input: 'largest corpus file (145,339 B)', median: m.large, value: `${ms(m.large)} ms`, target: null, status: 'info', note: floorNote(m.large), detail: { ...m, samples: times } },
  ];
}

if (isMain(import.meta.url)) {
  try {
    const { rows } = await run({ runs: Math.max(5, Number(argValue(process.argv, '--runs', 15))), log: console.log });
    console.log(textTable(['case', 'input', 'median', 'target', 'result', 'notes'], rows.map((r) => [r.case, r.input, r.value, r.target ?? '—', r.status, r.note])));
  } finally {
    cleanupTemp();
  }
}
