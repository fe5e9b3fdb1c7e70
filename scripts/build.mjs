#!/usr/bin/env node
/**
 * The build: esbuild bundles the server and CLI into one ESM file, dist/index.js, with every
 * dependency inlined. A client starts the server once per session, and one file starts faster
 * than a module graph spread over node_modules; it also makes the installed package need no
 * dependencies. Code reached only through `import()` (commands other than serve, tar, yaml,
 * fs-extra) stays in the file but is evaluated on first use.
 *
 * dist/testing/crash.js is a second entry point for the crash and lock tests: it re-exports
 * the modules their child process drives, built the same way as the bin.
 *
 * No source maps: they would point at sources the package does not ship. The licences of the
 * inlined packages are collected into dist/THIRD-PARTY-LICENSES.txt.
 *
 *   node scripts/build.mjs
 */
import { build } from 'esbuild';
import { chmodSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
rmSync(dist, { recursive: true, force: true });

const result = await build({
  absWorkingDir: root,
  entryPoints: { index: 'server/src/index.ts', 'testing/crash': 'server/src/testing/crash.ts' },
  outdir: dist,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // CommonJS dependencies call require() for Node built-ins; an ESM file has no require of its own.
  banner: { js: "import { createRequire as __coCreateRequire } from 'node:module';\nconst require = __coCreateRequire(import.meta.url);" },
  // Less text to parse at every start; identifiers are kept, so stack traces still name functions.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});

// One licence text per inlined package.
const pkgs = new Map();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = /^(.*node_modules\/((?:@[^/]+\/)?[^/]+))\//.exec(input);
  if (!m || pkgs.has(m[2])) continue;
  pkgs.set(m[2], path.join(root, m[1]));
}
const notices = [...pkgs.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([name, dir]) => {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
  const text = file ? readFileSync(path.join(dir, file), 'utf8').trim() : `License: ${pkg.license ?? 'see package'}`;
  return `${name}@${pkg.version} (${pkg.license ?? 'unknown'})\n\n${text}\n`;
});
writeFileSync(path.join(dist, 'THIRD-PARTY-LICENSES.txt'), `copilot-onboarding bundles these packages in dist/.\n\n${notices.join('\n' + '-'.repeat(72) + '\n\n')}`);

const bin = path.join(dist, 'index.js');
if (!existsSync(bin)) throw new Error('dist/index.js was not built');
chmodSync(bin, 0o755);
