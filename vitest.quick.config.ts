/**
 * `npm run test:quick`: test/unit and test/integration without the tests that start node child
 * processes (the built bin over stdio, the CLI, the npm pack install, the MCP Inspector, crash and
 * lock children), for everyday work. CI runs the whole suite (`npm test`); docs/testing.md says what each takes.
 */
import os from 'node:os';
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

/**
 * Test files that mock a module (vi.mock): the quick run shares one module cache per worker
 * (isolate: false, below), where a mock would leak into other files or miss a module another file
 * already loaded. They run in `npm test`, isolated.
 */
export const MOCKING = ['test/integration/propose-questions-read.test.ts'];

// COPILOT_ONBOARDING_QUICK=1: property tests run a tenth of their cases (test/helpers/runs.ts).
const config = mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [...SPAWNING, ...MOCKING, '**/node_modules/**'],
      env: { COPILOT_ONBOARDING_QUICK: '1' },
      // Worker threads that keep their module cache from file to file: each module is imported and
      // transformed once per worker instead of once per test file (that was most of the run's CPU).
      // Safe because no quick test mocks a module (those are in MOCKING), stubs the environment or changes the working
      // folder; each test makes its own temp workspace. Vitest's default on 2 cores is one worker.
      pool: 'threads',
      isolate: false,
      maxWorkers: Math.max(2, os.availableParallelism() - 1),
    },
  }),
);
// Everyday work: the pure core (test/unit) and the in-process integration tests. The in-process e2e
// and hostile suites drive real workspaces through the SDK client, call after call, and take most
// of the suite's time; they run in `npm test` (mergeConfig would add to the base list, so it is set).
config.test!.include = ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'];
// No quick test runs dist/ (those that do are in SPAWNING), so no build first (the base config's
// global setup rebuilds a stale dist/); temp workspaces on tmpfs when there is one (quick-setup.ts).
config.test!.globalSetup = ['test/helpers/quick-setup.ts'];
export default config;
