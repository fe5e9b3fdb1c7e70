/**
 * Fault injection for migrate and rollback. Every step of both calls a crash hook with the
 * name of the point it just passed. The default hook reads the environment variable
 * COPILOT_ONBOARDING_CRASH_AT and, when it equals the point's name, kills the process with
 * SIGKILL (no clean-up handlers run, exactly like `kill -9` or a power cut after the OS has
 * the data). test/integration/crash.test.ts drives it for every point; benchmarks pass their
 * own hook to time the steps.
 */

/** Environment variable of the fault-injection hook (tests only; see the module comment). */
export const CRASH_ENV = 'COPILOT_ONBOARDING_CRASH_AT';

/**
 * Every named crash point, in order. `-N` points are numbered from 1 per kind of step
 * (staged-1 is the first staged file, renamed-2 the second created/modified file moved into
 * place, deleted-1 the first deletion, rb-restored-1 the first backed-up file put back…).
 */
export const CRASH_POINTS = {
  migrate: [
    'lock-acquired',
    'after-stale-check',
    'journal-backing-up-written',
    'backup-archive-written',
    'backup-manifest-written',
    'backup-verified',
    'journal-applying-written',
    'dirs-created',
    'staged-N',
    'staged-synced',
    'renamed-N',
    'deleted-N',
    'dirs-synced',
    'verified',
    'journal-done-written',
    'state-recorded',
    'cleanup-done',
    'journal-cleared',
  ],
  rollback: ['rb-lock-acquired', 'rb-backup-verified', 'rb-journal-written', 'rb-restored-N', 'rb-removed-N', 'rb-sidecars-swept', 'rb-dirs-removed', 'rb-state-recorded', 'rb-journal-cleared'],
} as const;

export type CrashHook = (point: string) => void;

/** The production hook: SIGKILL this process when COPILOT_ONBOARDING_CRASH_AT names the point. */
export function crashFromEnv(point: string): void {
  const want = process.env[CRASH_ENV];
  if (want !== undefined && want !== '' && want === point) process.kill(process.pid, 'SIGKILL');
}


/** A hook that never crashes (automatic undo and recovery are not fault-injected). */
export const noCrash: CrashHook = () => undefined;
