/**
 * Vitest global setup: a stale dist/ can never be tested. The e2e tests spawn dist/index.js and
 * the crash tests import dist/testing/crash.js in child processes, so a `vitest run` after editing
 * server/src without a build would test old code. When any server/src file (or package.json) is
 * newer than the bundles (or they are missing), this rebuilds once (`npm run build`) and then
 * checks again; a build that still leaves dist/ stale fails the whole run with the file names.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(REPO, 'server/src');
const DIST = path.join(REPO, 'dist');

/** The build's outputs (scripts/build.mjs): the bin bundle and the crash-test entry. */
const OUTPUTS = ['index.js', 'testing/crash.js'];

function staleOutputs(): string[] {
  const built = OUTPUTS.map((o) => statSync(path.join(DIST, o), { throwIfNoEntry: false })?.mtimeMs ?? -1);
  const oldest = Math.min(...built);
  const inputs = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((rel) => rel.endsWith('.ts')).map((rel) => path.join('server/src', rel));
  inputs.push('package.json', 'scripts/build.mjs', 'scripts/bundle-options.mjs');
  return inputs.filter((rel) => statSync(path.join(REPO, rel)).mtimeMs > oldest);
}

export default function setup(): void {
  let stale = staleOutputs();
  if (stale.length === 0) return;
  process.stderr.write(`dist/ is older than server/src (${stale.slice(0, 3).join(', ')}${stale.length > 3 ? ', …' : ''}): running npm run build\n`);
  try {
    execFileSync('npm', ['run', 'build'], { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'] });
  } catch {
    process.stderr.write('npm run build reported errors (see above); checking whether it still wrote dist/\n');
  }
  stale = staleOutputs();
  if (stale.length > 0) throw new Error(`dist/ is still older than server/src after npm run build: ${stale.join(', ')}`);
}
