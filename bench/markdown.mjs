/**
 * Benchmark: parseMarkdown + splitSections (core/markdown.ts, built) against markdown-it's
 * md.parse() on the same synthetic monoliths of 1 MB and 10 MB.
 *
 *   npm run build && node bench/markdown.mjs
 *   MARKDOWN_JS=/tmp/scratch/core/markdown.js node bench/markdown.mjs   # another build output
 *
 * Prints the median of RUNS runs (after WARMUP runs) in ms and ms/MB, and the ratio.
 * markdown-it is given the decoded string (its decoding time is not counted); ours gets bytes.
 */
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { makeSyntheticMonolith } from './synthetic.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const target = process.env.MARKDOWN_JS ? path.resolve(process.env.MARKDOWN_JS) : path.join(here, '../dist/core/markdown.js');
const { parseMarkdown, splitSections } = await import(pathToFileURL(target).href);

const WARMUP = Number(process.env.WARMUP ?? 3);
const RUNS = Math.max(5, Number(process.env.RUNS ?? 7));
const md = new MarkdownIt({ html: true });

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(fn) {
  for (let i = 0; i < WARMUP; i++) fn();
  const out = [];
  for (let i = 0; i < RUNS; i++) {
    globalThis.gc?.();
    const t0 = process.hrtime.bigint();
    fn();
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(out);
}

const rows = [];
for (const [label, bytesTarget] of [['1 MB', 1 << 20], ['10 MB', 10 << 20]]) {
  const text = makeSyntheticMonolith(bytesTarget, 42);
  const bytes = new Uint8Array(Buffer.from(text, 'utf8'));
  const mb = bytes.length / (1 << 20);
  let sections = 0;
  let headings = 0;
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
  rows.push({
    input: label,
    bytes: bytes.length,
    headings,
    'markdown-it headings': mdHeadings,
    sections,
    'ours ms': +ours.toFixed(2),
    'ours ms/MB': +(ours / mb).toFixed(2),
    'markdown-it ms': +theirs.toFixed(2),
    'markdown-it ms/MB': +(theirs / mb).toFixed(2),
    'speed-up': +(theirs / ours).toFixed(1),
  });
}
console.log(`node ${process.version}, median of ${RUNS} runs after ${WARMUP} warm-up runs`);
console.table(rows);
if (rows.some((r) => r.headings !== r['markdown-it headings'])) {
  console.error('heading counts differ from markdown-it');
  process.exitCode = 1;
}
