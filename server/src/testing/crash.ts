/**
 * A second build entry point (dist/testing/crash.js) for the crash and lock tests: their child
 * process (test/helpers/crash-runner.mjs) drives migrate, rollback, recovery and the lock
 * through the built code, with the crash points armed by COPILOT_ONBOARDING_CRASH_AT.
 * Not part of the CLI; nothing imports it.
 */
export { migrate, rollback, recoverInterrupted } from '../io/migration.js';
export { acquireLock } from '../io/lock.js';
