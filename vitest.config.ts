import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

// The per-user trace key lives in the user's config folder: the tests (and every process they
// spawn) use a throwaway one, never the real ~/.config/copilot-onboarding/.
const configDir = process.env.COPILOT_ONBOARDING_CONFIG_DIR || mkdtempSync(path.join(os.tmpdir(), 'co-test-config-'));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Rebuilds dist/ when server/src is newer: the e2e and crash tests run the built code.
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    env: { COPILOT_ONBOARDING_CONFIG_DIR: configDir },
  },
});
