#!/usr/bin/env node
/**
 * Case: `traces verify` over 10,000 elicitation traces, from the BUILT code:
 * verifyChain(root, 'elicitation') (what `copilot-onboarding traces verify` runs per chain).
 *
 * Fixture: the first 20 traces are written by TraceStore.append itself; the other 9,980
 * continue the same chain (seq, prev_sha256 and sha256 computed with the build's own
 * recordHash / wholeHash, same file names, same pretty-printed JSON, head file updated) but
 * without append's lock and fsyncs, which would make the setup take about two minutes.
 * The fixture is cached in $TMPDIR/copilot-onboarding-bench-cache/, keyed by the hash of the
 * code that writes and reads it (BENCH_FRESH_FIXTURES=1 rebuilds it). Every timed call also
 * checks the fixture: verifyChain reports a valid chain of 10,000 traces. Side by side: floors
 * that only read the same files (fs.promises 64 at a time, or a readFileSync loop) and one that reads and JSON-parses them.
 *
 *   npm run build && node bench/traces.mjs [--runs 7] [--count 10000]
 */
import { promises as fsp, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST, argValue, cachedFixture, cleanupTemp, interleave, isMain, load, ms, profileTop, textTable } from './lib.mjs';

const BY_API = 20;

function unsealed(i) {
  const timestamp = new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + i * 1000 + (i % 1000)).toISOString();
  const question = `Question ${i}: should the ${['API', 'tests', 'CI', 'docs', 'React'][i % 5]} instructions apply to ${['src/**', 'tests/**', '.github/workflows/**'][i % 3]}?`;
  return {
    format: 'copilot-onboarding/elicitation-trace@1',
    timestamp,
    action: 'question',
    channel: 'mcp',
    client: { name: 'bench-client', version: '1.0.0' },
    message: `${question}\n\nPlease answer in a sentence or two. Your answer is saved in .copilot-state/questions/.`,
    schema: { type: 'object', properties: { answer: { type: 'string', title: 'Answer' } }, required: ['answer'] },
    response: { action: 'accept', content: { answer: `Answer ${i}: yes, scoped there.` } },
    outcome: 'answered',
    subject: { question },
    duration_ms: 1000 + (i % 5000),
    error: null,
  };
}

/** A workspace with a valid elicitation chain of `count` traces. */
export async function makeChain(root, count, { TraceStore, recordHash, wholeHash, fileTime, traceDir, mapLimit, recordChainMark }) {
  const store = new TraceStore(root, 'elicitation');
  let last = null;
  for (let i = 0; i < Math.min(BY_API, count); i++) last = await store.append(unsealed(i), 'question');
  const dir = traceDir(root, 'elicitation');
  let prev = wholeHash(last.record);
  let file = last.file;
  // The fields the store seals in (format @2), as append would write them at the same moment.
  const seal = { format: last.record.format, sealed_at: last.record.sealed_at, workspace: last.record.workspace };
  const files = [];
  for (let i = BY_API; i < count; i++) {
    const u = unsealed(i);
    file = `${fileTime(u.timestamp)}-question.json`;
    const body = { ...u, ...seal, file, seq: i + 1, prev_sha256: prev };
    const record = { ...body, sha256: recordHash(body) };
    files.push([file, JSON.stringify(record, null, 2) + '\n']);
    prev = wholeHash(record);
  }
  await mapLimit(files, 16, ([name, text]) => fsp.writeFile(path.join(dir, name), text, { flag: 'wx' }));
  const mark = { seq: count, sha256: prev, file };
  writeFileSync(path.join(dir, '.head.json'), JSON.stringify(mark));
  // The chain's last link is also kept in onboarding.json, and verify cross-checks it.
  await recordChainMark(root, 'elicitation', mark);
  return dir;
}

export async function run({ runs = 7, count = 10_000, floors = true, profile = true, warmup = 1, log = () => {} } = {}) {
  const traces = { ...(await load('io/traces.js')), mapLimit: (await load('io/workspace.js')).mapLimit, recordChainMark: (await load('io/state.js')).recordChainMark };
  const t0 = performance.now();
  const keyFiles = [fileURLToPath(import.meta.url), ...['io/traces.js', 'io/trace-seal.js', 'io/state.js', 'core/canonical.js', 'schemas/trace.js', 'io/workspace.js'].map((f) => path.join(DIST, f))];
  const { dir: root, cached } = await cachedFixture(`traces-${count}`, { keyFiles }, (d) => makeChain(d, count, traces));
  const dir = traces.traceDir(root, 'elicitation');
  log(`  traces verify: ${count} traces (${cached ? 'cached fixture' : `new fixture, ${ms(performance.now() - t0)} ms`}), ${warmup} warm-up + ${runs} runs`);
  const names = (await fsp.readdir(dir)).filter((f) => f.endsWith('.json') && !f.startsWith('.')).sort();
  const r = await interleave(
    {
      verify: {
        fn: async () => {
          // Every timed call is also the check of the fixture: a valid chain of `count` traces.
          const rep = await traces.verifyChain(root, 'elicitation');
          if (!rep.ok || rep.count !== count || rep.lastSeq !== count) {
            throw new Error(`trace fixture: ok ${rep.ok}, count ${rep.count}, lastSeq ${rep.lastSeq}: ${rep.problems[0]?.message ?? ''}`);
          }
        },
      },
      ...(floors
        ? {
            readFloor: { fn: () => traces.mapLimit(names, 64, async (n) => (await fsp.readFile(path.join(dir, n), 'utf8')).length) },
            syncReadFloor: { fn: () => names.map((n) => readFileSync(path.join(dir, n), 'utf8').length) },
            // What verifyChain does at least: read every file synchronously and JSON-parse it.
            parseFloor: {
              fn: () => {
                for (const n of names) JSON.parse(readFileSync(path.join(dir, n), 'utf8'));
              },
            },
          }
        : {}),
    },
    { runs, warmup },
  );
  const rows = [
    {
      case: 'traces verify',
      input: `${count.toLocaleString('en')} elicitation traces`,
      median: r.verify.wall,
      cpu: r.verify.cpu,
      target: '≤ 1000 ms',
      status: r.verify.wall <= 1000 ? 'PASS' : 'MISS',
      note: floors
        ? `floors on the same files: readFileSync loop only ${ms(r.syncReadFloor.wall)} ms, same + JSON.parse ${ms(r.parseFloor.wall)} ms, fs.promises.readFile ×64 only ${ms(r.readFloor.wall)} ms; verifyChain adds a schema check and the canonical JSON and two SHA-256 of each trace`
        : 'verifyChain: read, JSON.parse, schema check and two SHA-256 of canonical JSON per trace',
      detail: r.verify,
    },
  ];
  if (profile && rows[0].status === 'MISS') {
    log('  profiling traces verify (a miss)');
    rows[0].profile = await profileTop(() => traces.verifyChain(root, 'elicitation'), { runs: 2, top: 12 });
  }
  return { rows, ...r };
}

if (isMain(import.meta.url)) {
  try {
    const argv = process.argv.slice(2);
    const { rows } = await run({ runs: Number(argValue(argv, '--runs', 7)), count: Number(argValue(argv, '--count', 10_000)), log: console.log });
    console.log(textTable(['case', 'input', 'median ms', 'target', 'result', 'notes'], rows.map((r) => [r.case, r.input, ms(r.median), r.target ?? '—', r.status, r.note])));
  } finally {
    cleanupTemp();
  }
}
