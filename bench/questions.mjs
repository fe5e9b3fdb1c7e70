#!/usr/bin/env node
/**
 * Case: question_summary over 10,000 question files, from the BUILT code:
 * summarizeQuestions(root) (all entries) and summarizeQuestions(root, {limit: 10}).
 *
 * Fixture: the first 20 files are written by saveQuestion itself; the other 9,980 are
 * rendered the same way (the build's `yamlString` per field, same header and file name
 * pattern) but written without saveQuestion's per-file fsync, which would make the setup
 * take about a minute. The fixture is cached in $TMPDIR/copilot-onboarding-bench-cache/, keyed
 * by the hash of the code that writes and reads it (BENCH_FRESH_FIXTURES=1 rebuilds it). Every
 * timed call also checks the fixture: summarizeQuestions returns 10,000 entries and skips none
 * (with limit 10: the 10 newest). Side by side: floors that only read
 * the same files (a readFileSync loop, or fs.promises 64 at a time) and
 * one that reads them in a readFileSync loop and yaml-parses them (results dropped), so the time
 * can be split into I/O, parsing and the rest.
 *
 * Also propose (app/propose.js) on a small workspace with 10 and with 10,000 saved questions,
 * the newest of them the person's answer to the shared-rules question (issue 22: propose reads
 * newest first and stops at that answer; target: 10,000 within 1.2× of 10); then the same two
 * with that answer removed (propose reads only files named for that question: none). Fresh temp workspaces, written like the fixture above.
 * propose finds those names in .copilot-state/questions-index.json while the folder is unchanged
 * (io/questions.ts namesFor), written once the folder has been left alone for 2 s: the case waits
 * 2.1 s after each change, and reports the first (warm-up) call, which lists the folder and writes
 * the index.
 *
 *   npm run build && node bench/questions.mjs [--runs 7] [--count 10000]
 */
import { createHash } from 'node:crypto';
import { promises as fsp, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST, REPO_DIR, argValue, cachedFixture, cleanupTemp, interleave, isMain, load, ms, profileTop, tempDir, textTable } from './lib.mjs';

const BY_API = 20;

function entryFor(i) {
  const t = new Date(Date.UTC(2026, 0, 1, 0, 0, 0) + i * 1000 + (i % 1000));
  const timestamp = t.toISOString();
  return {
    timestamp,
    question: `Question ${i}: should the ${['API', 'tests', 'CI', 'docs', 'React'][i % 5]} instructions apply to ${['src/**', 'tests/**', '.github/workflows/**'][i % 3]}? Please pick one option and explain briefly.`,
    answer: `Answer ${i}: ${'Yes, keep them scoped there, and mention the exception for generated files. '.repeat(1 + (i % 3))}`.trim(),
    trace: `elicitation-traces/${timestamp.replace(/[:.]/g, '-')}-question.json`,
  };
}

/** What saveQuestion writes for `entry` (its header and its `yamlString` per field); and its file name (with the question's hash). */
function render(entry, i, yamlString) {
  const fields = ['timestamp', 'question', 'answer', 'trace'].map((k) => `  "${k}": ${yamlString(entry[k])}`);
  const header = `# Saved at ${entry.timestamp.replace('T', ' ').replace(/\.\d+Z$/, '')} UTC\n`;
  const t = new Date(entry.timestamp);
  const stamp = t.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15);
  const key = createHash('sha256').update(entry.question.trim()).digest('hex').slice(0, 8);
  const id = `${String(t.getUTCMilliseconds()).padStart(3, '0')}${(i % 36 ** 4).toString(36).padStart(4, '0')}${(0x10000000 + i).toString(16)}q${key}`;
  return { name: `${stamp}_${id}_question.yaml`, text: `${header}{\n${fields.join(',\n')}\n}\n` };
}

/** A workspace with `count` answered questions in .copilot-state/questions/. */
export async function makeQuestions(root, count, { saveQuestion, questionsDir, yamlString }) {
  for (let i = 0; i < Math.min(BY_API, count); i++) await saveQuestion(root, entryFor(i));
  const dir = questionsDir(root);
  mkdirSync(dir, { recursive: true });
  const { mapLimit } = await load('io/workspace.js');
  const rest = Array.from({ length: Math.max(0, count - BY_API) }, (_, k) => BY_API + k);
  await mapLimit(rest, 16, async (i) => {
    const { name, text } = render(entryFor(i), i, yamlString);
    await fsp.writeFile(path.join(dir, name), text, { flag: 'wx' });
  });
  return dir;
}

/** List the folder and read every file with fs.promises, 64 at a time (io/workspace.js mapLimit). */
async function readAll(dir, fn) {
  const { mapLimit } = await load('io/workspace.js');
  const names = (await fsp.readdir(dir)).filter((n) => n.endsWith('_question.yaml')).sort();
  return mapLimit(names, 64, async (n) => fn(await fsp.readFile(path.join(dir, n), 'utf8')));
}

/** propose on a workspace with `n` saved questions and, newest, an answer to the shared-rules question. */
async function proposeWorkspace(n, api) {
  const { SHARED_RULES_QUESTION } = await load('core/agents/shared-rules.js');
  const root = tempDir('co-bench-propose-q-');
  const rule = '- Use pnpm for every install in this repository.\n';
  mkdirSync(path.join(root, '.github'), { recursive: true });
  await fsp.writeFile(path.join(root, '.github/copilot-instructions.md'), `# Repo\n\n${rule}`);
  await fsp.writeFile(path.join(root, 'CLAUDE.md'), `# Claude\n\n${rule}`);
  await makeQuestions(root, n, api);
  // As question_ask saves a person's answer: its trace first (propose reads only an answer its trace records).
  const { answerQuestion } = await load('testing/confirm.js');
  const { saved: answer } = await answerQuestion(root, SHARED_RULES_QUESTION, 'keep', '2027-01-01T00:00:00.000Z');
  return { root, answer: path.join(root, answer) };
}

/** Rows: propose with 10 vs `count` saved questions, with the shared-rules answer newest, then without it. */
async function proposeRows({ runs, warmup, count, api, log }) {
  const { propose } = await load('app/propose.js');
  const small = await proposeWorkspace(10, api);
  const big = await proposeWorkspace(count, api);
  log(`  propose: 10 vs ${count} saved questions, ${warmup} warm-up + ${runs} runs`);
  // propose keeps the names it needs in an index once the questions folder has been left alone
  // for 2 s (io/questions.ts QUIET_MS): a person answers, then an agent proposes. The first call
  // after that lists the folder and writes the index; its time is the "first" of each contender.
  const quiet = () => new Promise((resolve) => setTimeout(resolve, 2100));
  await quiet();
  const check = (want) => async (root) => {
    const { sharedRules } = await propose(root, undefined);
    if ((sharedRules.choice ?? null) !== want) throw new Error(`propose: sharedRules.choice ${sharedRules.choice} (expected ${want})`);
  };
  const answered = check('keep');
  const a = await interleave({ small: { fn: () => answered(small.root) }, big: { fn: () => answered(big.root) } }, { runs, warmup });
  await fsp.rm(small.answer);
  await fsp.rm(big.answer);
  await quiet();
  const none = check(null);
  const b = await interleave({ small: { fn: () => none(small.root) }, big: { fn: () => none(big.root) } }, { runs, warmup });
  const input = `10 vs ${count.toLocaleString('en')} saved questions`;
  const ratioA = a.big.wall / a.small.wall;
  return [
    {
      case: 'propose, shared-rules answer newest',
      input,
      median: a.big.wall,
      cpu: a.big.cpu,
      target: '≤ 1.2× the 10-question run',
      ratio: ratioA,
      status: ratioA <= 1.2 ? 'PASS' : 'MISS',
      note: `${ratioA.toFixed(2)}× (${ms(a.small.wall)} ms with 10): reads the newest files named for the question down to the answer; the first call after the folder changed lists it and writes the index: ${ms(a.big.first)} ms (${ms(a.small.first)} ms with 10)`,
      detail: a.big,
    },
    {
      case: 'propose, no shared-rules answer',
      input,
      median: b.big.wall,
      cpu: b.big.cpu,
      target: '≤ 1.2× the 10-question run',
      ratio: b.big.wall / b.small.wall,
      status: b.big.wall / b.small.wall <= 1.2 ? 'PASS' : 'MISS',
      note: `${(b.big.wall / b.small.wall).toFixed(2)}× (${ms(b.small.wall)} ms with 10): reads only files named for the shared-rules question (none); the first call after the folder changed lists it and writes the index: ${ms(b.big.first)} ms (${ms(b.small.first)} ms with 10)`,
      detail: b.big,
    },
  ];
}

export async function run({ runs = 7, count = 10_000, floors = true, profile = true, withPropose = true, warmup = 1, log = () => {} } = {}) {
  const { saveQuestion, summarizeQuestions, questionsDir, yamlString, parseQuestionYaml } = await load('io/questions.js');
  const t0 = performance.now();
  const keyFiles = [fileURLToPath(import.meta.url), ...['io/questions.js', 'schemas/question.js', 'io/workspace.js'].map((f) => path.join(DIST, f)), path.join(REPO_DIR, 'node_modules/yaml/package.json')];
  const { dir: root, cached } = await cachedFixture(`questions-${count}`, { keyFiles }, (d) => makeQuestions(d, count, { saveQuestion, questionsDir, yamlString }));
  const dir = questionsDir(root);
  // Every timed call is also the check of the fixture: all 10,000 entries, none skipped; limit 10 = the 10 newest.
  let summaryBytes = 0;
  const checkAll = (res) => {
    if (res.total !== count || res.count !== count || res.skipped.length) {
      throw new Error(`question fixture: total ${res.total}, count ${res.count}, skipped ${res.skipped.length} (expected ${count}, ${count}, 0)`);
    }
    summaryBytes = res.summary.length;
  };
  const newest = entryFor(count - 1).timestamp;
  const checkLast = (res) => {
    if (res.count !== 10 || res.entries[9].timestamp !== newest) throw new Error('limit 10 did not return the 10 newest');
  };
  log(`  question_summary: ${count} files (${cached ? 'cached fixture' : `new fixture, ${ms(performance.now() - t0)} ms`}), ${warmup} warm-up + ${runs} runs`);
  const names = (await fsp.readdir(dir)).filter((n) => n.endsWith('_question.yaml')).sort();
  const r = await interleave(
    {
      all: { fn: async () => checkAll(await summarizeQuestions(root)) },
      limit10: { fn: async () => checkLast(await summarizeQuestions(root, { limit: 10 })) },
      ...(floors
        ? {
            readFloor: { fn: () => readAll(dir, (t) => t.length) },
            syncReadFloor: { fn: () => names.map((n) => readFileSync(path.join(dir, n), 'utf8').length) },
            // What summarizeQuestions does at least: read every file synchronously and parse it.
            parseFloor: {
              fn: () => {
                for (const n of names) parseQuestionYaml(readFileSync(path.join(dir, n), 'utf8'));
              },
            },
          }
        : {}),
    },
    { runs, warmup },
  );
  const rows = [
    {
      case: 'question_summary (all)',
      input: `${count.toLocaleString('en')} question files`,
      median: r.all.wall,
      cpu: r.all.cpu,
      target: '≤ 8× read floor',
      ratio: floors ? r.all.wall / r.syncReadFloor.wall : undefined,
      status: !floors ? 'n/a' : r.all.wall <= 8 * r.syncReadFloor.wall ? 'PASS' : 'MISS',
      note: floors
        ? `${(r.all.wall / r.syncReadFloor.wall).toFixed(1)}× the read floor; floors on the same files: readFileSync loop only ${ms(r.syncReadFloor.wall)} ms, same + parse ${ms(r.parseFloor.wall)} ms, fs.promises.readFile ×64 only ${ms(r.readFloor.wall)} ms; output: one YAML document of ${(summaryBytes / 2 ** 20).toFixed(1)} MiB`
        : `output: one YAML document of ${(summaryBytes / 2 ** 20).toFixed(1)} MiB`,
      detail: r.all,
    },
    {
      case: 'question_summary (limit 10)',
      input: `${count.toLocaleString('en')} question files`,
      median: r.limit10.wall,
      cpu: r.limit10.cpu,
      target: '≤ 50 ms',
      status: r.limit10.wall <= 50 ? 'PASS' : 'MISS',
      note: 'lists the folder, reads the 10 newest files',
      detail: r.limit10,
    },
  ];
  if (withPropose) rows.push(...(await proposeRows({ runs, warmup, count, api: { saveQuestion, questionsDir, yamlString }, log })));
  if (profile && rows[0].status === 'MISS') {
    log('  profiling question_summary (a miss)');
    rows[0].profile = await profileTop(() => summarizeQuestions(root), { runs: 2, top: 12 });
  }
  return { rows, ...r };
}

if (isMain(import.meta.url)) {
  try {
    const argv = process.argv.slice(2);
    const { rows } = await run({ runs: Number(argValue(argv, '--runs', 7)), count: Number(argValue(argv, '--count', 10_000)), log: console.log });
    console.log(textTable(['case', 'input', 'median ms', 'target', 'result', 'notes'], rows.map((r) => [r.case, r.input, ms(r.median), r.target ?? '—', r.status, r.note])));
    if (rows[0].profile) console.log(rows[0].profile);
  } finally {
    cleanupTemp();
  }
}
