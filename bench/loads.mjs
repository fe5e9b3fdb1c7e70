#!/usr/bin/env node
/**
 * Case: what loads where on a large tree, from the BUILT modules (core/loads.ts loadFigure):
 * 50,000 files in 100 top-level folders (mixed .ts, .tsx, .py, .md, .yml, Dockerfile), a
 * 40 KB repository-wide file before, and after a plan of 12 scoped files (24 globs: folder,
 * extension and brace globs) plus the kept part. Every glob is matched against every file on the
 * three surfaces (github.com's two share one style, VS Code has its own), before and after.
 * Target: ≤ 500 ms on the 50,000-file tree (an approve form must not wait on it).
 *
 *   npm run build:modules && COPILOT_ONBOARDING_DIST=bench/.out/modules node bench/loads.mjs [--runs 5] [--files 50000]
 */
import { argValue, isMain, load, measure, ms, textTable } from './lib.mjs';

const TARGET_MS = 500;

export function tree(n) {
  const kinds = ['a.ts', 'b.tsx', 'c.py', 'README.md', 'ci.yml', 'Dockerfile', 'd.test.ts', 'e.go'];
  return Array.from({ length: n }, (_, i) => `top${i % 100}/sub${(i >> 7) % 20}/f${i}-${kinds[i % kinds.length]}`);
}

const GLOBS = [
  ['typescript', '**/*.ts,**/*.tsx'],
  ['testing', '**/*.test.ts,**/*.spec.ts'],
  ['python', '**/*.py'],
  ['docs', '**/*.md'],
  ['ci', '.github/workflows/**,**/*.yml'],
  ['docker', '**/Dockerfile*'],
  ['go', '**/*.go'],
  ['top1', 'top1/**'],
  ['top2', 'top2/**,top3/**'],
  ['web', 'top4/**/*.{ts,tsx}'],
  ['api', 'top5/sub1/**,top5/sub2/**'],
  ['scripts', 'top6/**/*.py,top7/**/*.py,top8/**'],
];

export async function run({ runs = 5, files = 50_000, log = () => {} } = {}) {
  const { loadFigure } = await load('core/loads.js');
  const paths = tree(files);
  const before = [{ path: '.github/copilot-instructions.md', text: 'x'.repeat(40_000) }];
  const after = [
    { path: '.github/copilot-instructions.md', text: 'x'.repeat(6_000) },
    ...GLOBS.map(([name, g]) => ({ path: `.github/instructions/${name}.instructions.md`, text: `---\napplyTo: "${g}"\n---\n${'y'.repeat(2_000)}` })),
  ];
  let figure;
  const r = await measure(() => {
    figure = loadFigure(paths, before, after);
  }, { runs, warmup: 1 });
  const cr = figure.surfaces.find((s) => s.surface === 'code-review');
  log(`loads: ${files} files, ${GLOBS.length} scoped files; code review mean ${cr.before.mean} → ${cr.after.mean}, max ${cr.after.max}`);
  return {
    rows: [{ case: 'what loads where', input: `${files.toLocaleString('en-US')} files, 24 globs, 3 surfaces`, median: r.wall, cpu: r.cpu, target: `≤ ${TARGET_MS} ms`, status: r.wall <= TARGET_MS ? 'PASS' : 'MISS', note: `loadFigure before and after; ${figure.surfaces[0].folders.length} top-level folders` }],
  };
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  const out = await run({ runs: Number(argValue(argv, '--runs', 5)), files: Number(argValue(argv, '--files', 50_000)), log: (s) => process.stderr.write(`${s}\n`) });
  process.stdout.write(`${textTable(['case', 'input', 'median ms', 'cpu ms', 'target', 'status'], out.rows.map((x) => [x.case, x.input, ms(x.median), ms(x.cpu), x.target, x.status]))}\n`);
}
