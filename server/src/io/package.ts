import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * This package's folder and version, from its package.json: the nearest one above the running
 * file whose name is ours, so both are found from the bundled dist/index.js, from a module of
 * a per-file build and from the TypeScript sources alike.
 */
const found: { root: string; version: string } = (() => {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const up of ['..', '../..', '../../..']) {
    const root = path.resolve(here, up);
    try {
      const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'copilot-onboarding' && pkg.version) return { root, version: pkg.version };
    } catch {
      // not there: look one folder higher
    }
  }
  return { root: path.resolve(here, '..'), version: '0.0.0' };
})();

export const VERSION: string = found.version;
/** The installed package's folder (holds dist/, examples/, docs/). */
export const PACKAGE_ROOT: string = found.root;
