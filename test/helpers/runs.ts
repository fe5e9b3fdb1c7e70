/**
 * How many cases a fast-check property runs: the full count in `npm test`, a tenth of it (at
 * least 20) in `npm run test:quick`, whose config sets COPILOT_ONBOARDING_QUICK=1. The properties
 * and their assertions are the same in both; only the number of generated cases differs.
 */
export function runs(full: number): number {
  return process.env.COPILOT_ONBOARDING_QUICK === '1' ? Math.max(20, Math.ceil(full / 10)) : full;
}

/**
 * True in `npm run test:quick`: a test whose subject is the size of its input (a 10 MB file, a
 * guard against a quadratic path) runs in `npm test` only, `it.skipIf(quick)`; docs/testing.md
 * lists them.
 */
export const quick = process.env.COPILOT_ONBOARDING_QUICK === '1';
