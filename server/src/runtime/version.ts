import { readFileSync } from 'node:fs';

/**
 * The package version, read from this package's package.json: the nearest one above the running
 * file whose name is ours, so it is found from `dist/runtime/version.js` and from a bundled
 * single file alike.
 */
export const VERSION: string = (() => {
  for (const up of ['../package.json', '../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'copilot-onboarding' && pkg.version) return pkg.version;
    } catch {
      // not there: look one folder higher
    }
  }
  return '0.0.0';
})();
