/**
 * Benchmark: parseMarkdown + splitSections (core/markdown.ts, built) against markdown-it's
 * md.parse() on the same synthetic monoliths of 1 MB and 10 MB.
 *
 *   npm run build && node bench/markdown.mjs
 *   MARKDOWN_JS=/tmp/scratch/core/markdown.js node bench/markdown.mjs   # another build output
 *
 * Prints the median of RUNS runs (after WARMUP runs) in ms and ms/MB, and the ratios, for:
 * - ours: parseMarkdown + splitSections on the bytes;
 * - markdown-it md.parse(): the whole parse (block + inline), as an application would call it;
 * - markdown-it block only: normalize + the block parser (what our scanner replaces).
 * markdown-it is given the decoded string (its decoding time is not counted); ours gets bytes.
 * Machine load matters: run it on a quiet machine, and compare the ratio rather than the ms.
 * "first call" is the very first parse of the process (V8 has not optimised anything yet).
 */
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { makeSyntheticMonolith } from './synthetic.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const target = process.env.MARKDOWN_JS ? path.resolve(process.env.MARKDOWN_JS) : path.join(here, '../dist/core/markdown.js');
const { parseMarkdown, splitSections } = await import(pathToFileURL(target).href);

const WARMUP = Number(process.env.WARMUP ?? 20); // V8 needs a few calls on 1 MB before the hot code is optimised
const RUNS = Math.max(5, Number(process.env.RUNS ?? 9));
const md = new MarkdownIt({ html: true });

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** Median wall-clock ms, and median CPU ms of this process (less sensitive to a busy machine). */
function time(fn) {
  for (let i = 0; i < WARMUP; i++) fn();
  const wall = [];
  const cpu = [];
  for (let i = 0; i < RUNS; i++) {
    // no forced gc() here: the concurrent GC threads it wakes would be billed to the next run
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    fn();
    wall.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const c1 = process.cpuUsage(c0);
    cpu.push((c1.user + c1.system) / 1e3);
  }
  return { wall: median(wall), cpu: median(cpu) };
}

const rows = [];
for (const [label, bytesTarget] of [['1 MB', 1 << 20], ['10 MB', 10 << 20]]) {
  const text = makeSyntheticMonolith(bytesTarget, 42);
  const bytes = new Uint8Array(Buffer.from(text, 'utf8'));
  const mb = bytes.length / (1 << 20);
  let sections = 0;
  let headings = 0;
  const c0 = process.cpuUsage();
  splitSections('.github/copilot-instructions.md', bytes, parseMarkdown(bytes), 1);
  const firstCall = process.cpuUsage(c0);
  const ours = time(() => {
    const parsed = parseMarkdown(bytes);
    headings = parsed.headings.length;
    sections = splitSections('.github/copilot-instructions.md', bytes, parsed, 1).length;
  });
  let mdHeadings = 0;
  const theirs = time(() => {
    const tokens = md.parse(text, {});
    mdHeadings = 0;
    for (const t of tokens) if (t.type === 'heading_open' && t.level === 0) mdHeadings++;
  });
  const block = time(() => {
    const state = new md.core.State(text, md, {});
    md.core.ruler.getRules('')[0](state); // normalize
    md.block.parse(state.src, md, {}, []);
  });
  const per = (t) => +(t / mb).toFixed(2);
  rows.push({
    input: label,
    bytes: bytes.length,
    headings,
    'md headings': mdHeadings,
    sections,
    'ours first call cpu ms': +((firstCall.user + firstCall.system) / 1e3).toFixed(1),
    'ours ms/MB': per(ours.wall),
    'md.parse ms/MB': per(theirs.wall),
    'md block ms/MB': per(block.wall),
    'ours cpu ms/MB': per(ours.cpu),
    'md.parse cpu ms/MB': per(theirs.cpu),
    'md block cpu ms/MB': per(block.cpu),
    'x md.parse': +(theirs.cpu / ours.cpu).toFixed(1),
    'x md block': +(block.cpu / ours.cpu).toFixed(1),
  });
}
console.log(`node ${process.version}, median of ${RUNS} runs after ${WARMUP} warm-up runs; load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')}; ratios on CPU time`);
console.table(rows);
if (rows.some((r) => r.headings !== r['md headings'])) {
  console.error('heading counts differ from markdown-it');
  process.exitCode = 1;
}
