#!/usr/bin/env node
/**
 * Benchmark: what core/markdown.ts (built) adds to markdown-it. Side by side, interleaved, on
 * the largest corpus file and on synthetic monoliths of 1 MiB and 10 MiB (bench/synthetic.mjs):
 * - adapter: parseMarkdown + splitSections on the bytes (decoding, line table, front matter,
 *   markdown-it's block parse, headings → byte ranges, sections);
 * - md block: markdown-it with only its normalize and block rules (what the adapter runs) on
 *   the decoded string (decoding not counted);
 * - md.parse: markdown-it's whole parse (block + inline), as an application would call it;
 * - base (only with BASE_DIST=<another build's dist folder>): that build's parseMarkdown +
 *   splitSections, e.g. the previous version, to compare before/after in the same run.
 *
 *   npm run build && node bench/markdown.mjs [--runs 9] [--quick]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import MarkdownIt from 'markdown-it';
import { makeSyntheticMonolith } from './synthetic.mjs';
import { CORPUS_DIR, argValue, interleave, load, loadAverage, ms, textTable } from './lib.mjs';

const runs = Number(argValue(process.argv, '--runs', 9));
const quick = process.argv.includes('--quick');
const ours = await load('core/markdown.js');
const base = process.env.BASE_DIST ? await import(pathToFileURL(path.resolve(process.env.BASE_DIST, 'core/markdown.js')).href) : null;
const full = new MarkdownIt({ html: true });
const block = new MarkdownIt({ html: true });
block.core.ruler.enableOnly(['normalize', 'block']);

const inputs = [
  ['corpus inspector AGENTS.md', () => readFileSync(path.join(CORPUS_DIR, 'modelcontextprotocol__inspector__AGENTS.md'), 'utf8')],
  ['synthetic 1 MiB', () => makeSyntheticMonolith(1 << 20, 42)],
  ...(quick ? [] : [['synthetic 10 MiB', () => makeSyntheticMonolith(10 << 20, 42)]]),
];

const split = (m, bytes) => m.splitSections('x.md', bytes, m.parseMarkdown(bytes), 1).length;
const rows = [];
for (const [label, make] of inputs) {
  let text;
  try {
    text = make();
  } catch {
    continue; // no corpus here
  }
  const bytes = new Uint8Array(Buffer.from(text, 'utf8'));
  const contenders = {
    adapter: { fn: () => split(ours, bytes) },
    'md block': { fn: () => block.parse(text, {}) },
    'md.parse': { fn: () => full.parse(text, {}) },
    ...(base ? { base: { fn: () => split(base, bytes) } } : {}),
  };
  const r = await interleave(contenders, { runs, warmup: 3 });
  const row = [label, `${(bytes.length / 1024).toFixed(0)} KiB`, String(split(ours, bytes))];
  for (const k of Object.keys(contenders)) row.push(ms(r[k].wall));
  row.push(ms(r.adapter.wall - r['md block'].wall));
  rows.push(row);
}
console.log(`node ${process.version}; median of ${runs} interleaved runs after 3 warm-up runs, wall ms; load average ${loadAverage()}`);
console.log(textTable(['input', 'size', 'sections', 'adapter', 'md block', 'md.parse', ...(base ? ['base'] : []), 'adapter - md block'], rows));
