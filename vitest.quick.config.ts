/**
 * `npm run test:quick`: test/unit and test/integration without the tests that start node child
 * processes (the built bin over stdio, the CLI, the npm pack install, the MCP Inspector, crash and
 * lock children), for everyday work. CI runs the whole suite (`npm test`); docs/testing.md says what each takes.
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

// COPILOT_ONBOARDING_QUICK=1: property tests run a tenth of their cases (test/helpers/runs.ts).
const config = mergeConfig(base, defineConfig({ test: { exclude: [...SPAWNING, '**/node_modules/**'], env: { COPILOT_ONBOARDING_QUICK: '1' } } }));
// Everyday work: the pure core (test/unit) and the in-process integration tests. The in-process e2e
// and hostile suites drive real workspaces through the SDK client, call after call, and take most
// of the suite's time; they run in `npm test` (mergeConfig would add to the base list, so it is set).
config.test!.include = ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts'];
export default config;
