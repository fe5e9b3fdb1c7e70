/**
 * Deterministic synthetic "monolithic instructions" Markdown for benchmarks: headings at
 * three levels, paragraphs (some CJK and emoji), bullet and ordered lists, fenced code blocks
 * full of `#` lines, tables, block quotes and the odd setext heading; list items are now and
 * then rule sentences ("Always …", "Never …", "Use 2 spaces …"), about as often as in the corpus.
 *
 *   import { makeSyntheticMonolith } from './synthetic.mjs';
 *   const text = makeSyntheticMonolith(1 << 20, 42); // ~1 MB, same bytes for the same seed
 */

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'use', 'prefer', 'tests', 'TypeScript', 'React', 'components', 'hooks', 'the', 'a', 'API', 'errors',
  'logging', 'database', 'migrations', 'CI', 'workflow', 'Python', 'ruff', 'format', 'lint', 'strict', 'mode', 'files',
  'under', '`src/`', '`*.test.ts`', 'async', 'await', 'naming', 'conventions', 'security', 'secrets', 'review', 'commit',
  'messages', 'docs', 'README', 'and', 'or', 'with', 'without', 'before', 'after', '**bold**', '_emphasis_', '[link](https://example.com)',
];
const CJK = ['日本語の説明', '中文说明', '한국어 설명', '🚀', '✅', 'café'];
/** Rule sentences as people write them (a few per section, as in the corpus). */
const RULES = [
  'Always run the tests before committing.', 'Never commit secrets or tokens.', 'Always use strict mode.', 'Never use `any`.',
  'Use 2 spaces for indentation.', 'Prefer single quotes in TypeScript.', 'Always add a changelog entry.', 'Never push to main directly.',
];
const TOPICS = ['TypeScript', 'Testing', 'React', 'Python scripts', 'CI', 'Security', 'Database', 'API design', 'Logging', 'Docs', '日本語ガイド', 'Go services'];

/** @param {number} bytesTarget @param {number} seed @returns {string} */
export function makeSyntheticMonolith(bytesTarget, seed) {
  const rnd = mulberry32(seed);
  const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
  const sentence = (min, max) => {
    const n = min + Math.floor(rnd() * (max - min + 1));
    const w = [];
    for (let i = 0; i < n; i++) w.push(rnd() < 0.04 ? pick(CJK) : pick(WORDS));
    const s = w.join(' ');
    return s.charAt(0).toUpperCase() + s.slice(1) + '.';
  };
  const chunks = ['# Instructions for the synthetic monolith\n\nBe concise. Explain trade-offs before large changes.\n\n'];
  let size = Buffer.byteLength(chunks[0]);
  let section = 0;
  const push = (s) => {
    chunks.push(s);
    size += Buffer.byteLength(s);
  };
  while (size < bytesTarget) {
    section++;
    push(`## ${pick(TOPICS)} ${section}\n\n`);
    const blocks = 3 + Math.floor(rnd() * 6);
    for (let b = 0; b < blocks && size < bytesTarget; b++) {
      const r = rnd();
      if (r < 0.25) {
        push(`${sentence(8, 30)} ${sentence(5, 20)}\n${sentence(6, 18)}\n\n`);
      } else if (r < 0.45) {
        const n = 2 + Math.floor(rnd() * 5);
        let s = '';
        for (let i = 0; i < n; i++) s += `${rnd() < 0.7 ? '-' : `${i + 1}.`} ${rnd() < 0.1 ? pick(RULES) : sentence(4, 14)}\n${rnd() < 0.2 ? `  - ${sentence(3, 8)}\n` : ''}`;
        push(`${s}\n`);
      } else if (r < 0.6) {
        const fence = rnd() < 0.8 ? '```' : '~~~';
        let s = `${fence}${pick(['ts', 'bash', 'python', 'yaml', ''])}\n`;
        const n = 3 + Math.floor(rnd() * 10);
        for (let i = 0; i < n; i++) s += rnd() < 0.3 ? `# ${sentence(2, 6)}\n` : `${pick(['const', 'let', 'run', 'echo', 'def'])} x${i} = ${Math.floor(rnd() * 1000)}\n`;
        push(`${s}${fence}\n\n`);
      } else if (r < 0.72) {
        const cols = 2 + Math.floor(rnd() * 3);
        let s = `| ${Array.from({ length: cols }, () => pick(WORDS)).join(' | ')} |\n|${' --- |'.repeat(cols)}\n`;
        const rows = 2 + Math.floor(rnd() * 6);
        for (let i = 0; i < rows; i++) s += `| ${Array.from({ length: cols }, () => pick(WORDS)).join(' | ')} |\n`;
        push(`${s}\n`);
      } else if (r < 0.8) {
        push(`> ${sentence(5, 15)}\n> # ${sentence(1, 3)}\n\n`);
      } else if (r < 0.9) {
        push(`### ${pick(TOPICS)} detail\n\n${sentence(6, 20)}\n\n`);
      } else if (r < 0.95) {
        push(`${pick(TOPICS)} notes\n${'-'.repeat(8)}\n\n${sentence(4, 12)}\n\n`);
      } else {
        push(`    # indented code ${Math.floor(rnd() * 100)}\n    echo ok\n\n`);
      }
    }
  }
  return chunks.join('');
}
