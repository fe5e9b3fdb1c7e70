#!/usr/bin/env node
/**
 * The build: esbuild bundles the server and CLI into dist/index.js and a few chunks in
 * dist/chunks/, with every dependency inlined, so the installed package needs no dependencies.
 * Code splitting: what is reached only through `import()` (the commands other than the one run,
 * and in the server each tool's work) is in chunks that are read and evaluated on first use, so
 * `serve` starts with the SDK, zod and the tool schemas only, and `analyze` loads no tar, SDK
 * client or migration code.
 *
 * dist/testing/crash.js is a second entry point for the crash and lock tests: it re-exports
 * the modules their child process drives, built on its own (one file, no shared chunks), so
 * dist/chunks/ holds only what the bin can load.
 *
 * No source maps: they would point at sources the package does not ship. The licences of the
 * inlined packages are collected into dist/THIRD-PARTY-LICENSES.txt.
 *
 *   node scripts/build.mjs
 */
import { build } from 'esbuild';
import { bundleOptions, productSplit } from './bundle-options.mjs';
import { chmodSync, existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');
rmSync(dist, { recursive: true, force: true });

const result = await build({
  ...bundleOptions,
  ...productSplit,
  absWorkingDir: root,
  outdir: dist,
  metafile: true,
});
await build({ ...bundleOptions, absWorkingDir: root, entryPoints: { 'testing/crash': 'server/src/testing/crash.ts' }, outdir: dist });

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
