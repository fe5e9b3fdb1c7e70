/**
 * `npm run test:quick`: the suite without the tests that start node child processes (the built
 * bin over stdio, the CLI, the npm pack install, the MCP Inspector, crash and lock children),
 * for everyday work. CI runs the whole suite (`npm test`); docs/testing.md says what each takes.
 */
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/** Test files that spawn node processes or a browser (kept in one list so the split is visible). */
export const SPAWNING = [
  'test/e2e/cli-readonly.test.ts',
  'test/e2e/cli.test.ts',
  'test/e2e/inspector.test.ts',
  'test/e2e/pack.test.ts',
  'test/e2e/plan-view-browser.test.ts',
  'test/e2e/protocol.test.ts',
  'test/e2e/stdio.test.ts',
  'test/e2e/workflow-example.test.ts',
  'test/hostile/chain.test.ts',
  'test/integration/crash.test.ts',
  'test/integration/explain.test.ts',
  'test/integration/lock.test.ts',
  'test/integration/traces.test.ts',
];

export default mergeConfig(base, defineConfig({ test: { exclude: [...SPAWNING, '**/node_modules/**'] } }));
