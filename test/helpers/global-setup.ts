/**
 * Vitest global setup: a stale dist/ can never be tested. The e2e tests spawn dist/index.js and
 * the crash tests import dist/ in child processes, so a `vitest run` after editing server/src
 * without a build would test old code. When any server/src file is newer than its compiled
 * counterpart (or that is missing), this rebuilds once (`npm run build`) and then checks again;
 * a build that still leaves dist/ stale fails the whole run with the file names. Type errors
 * alone do not (tsc still emits, and the unit tests run from source).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(REPO, 'server/src');
const DIST = path.join(REPO, 'dist');

function staleOutputs(): string[] {
  const stale: string[] = [];
  for (const rel of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
    if (!rel.endsWith('.ts') || rel.endsWith('.d.ts')) continue;
    const src = statSync(path.join(SRC, rel));
    const out = statSync(path.join(DIST, rel.replace(/\.ts$/, '.js')), { throwIfNoEntry: false });
    if (!out || out.mtimeMs < src.mtimeMs) stale.push(rel);
  }
  return stale;
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
