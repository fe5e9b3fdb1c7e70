/**
 * Fault injection for migrate and rollback. Every step of both calls a crash hook with the
 * name of the point it just passed. The default hook reads the environment variable
 * COPILOT_ONBOARDING_CRASH_AT and, when it equals the point's name, kills the process with
 * SIGKILL (no clean-up handlers run, exactly like `kill -9` or a power cut after the OS has
 * the data). The points are named where io/apply.ts and io/rollback.ts call the hook (`-N`
 * points are numbered from 1 per kind of step: staged-1, renamed-2, rb-restored-1, …);
 * test/integration/crash.test.ts drives every one; benchmarks pass their own hook to time the steps.
 */

/** Environment variable of the fault-injection hook (tests only; see the module comment). */
const CRASH_ENV = 'COPILOT_ONBOARDING_CRASH_AT';

export type CrashHook = (point: string) => void;

/** The production hook: SIGKILL this process when COPILOT_ONBOARDING_CRASH_AT names the point. */
export function crashFromEnv(point: string): void {
  const want = process.env[CRASH_ENV];
  if (want !== undefined && want !== '' && want === point) process.kill(process.pid, 'SIGKILL');
}

/** A hook that never crashes (automatic undo and recovery are not fault-injected). */
export const noCrash: CrashHook = () => undefined;
