/**
 * Crash recovery, run at server start, in status and before every gate: finish or undo an
 * interrupted migration or rollback. Recovery records every outcome it reaches in
 * onboarding.json itself (io/recovery), before it clears the journal.
 */
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { recoverInterrupted } from '../io/recovery.js';

export interface Recovery {
  status: string;
  migrationId: string | null;
  message: string;
}

/** Finish or undo an interrupted migration/rollback before doing anything else. */
export async function recover(root: string): Promise<Recovery | null> {
  const r = await recoverInterrupted(root);
  if (r.status === 'none') return null;
  if (r.status === 'busy') {
    throw new OnboardingError(ErrorCode.BUSY, r.message, { next: 'Wait for the running migration or rollback to finish, then try again.' });
  }
  return { status: r.status, migrationId: r.migrationId ?? null, message: r.message };
}

/**
 * Recovery at server start, before the first request: never fails the start (a busy lock or an
 * unusable backup is reported through `report` and again by status and every gate).
 */
export async function recoverAtStart(root: string, report: (message: string) => void): Promise<void> {
  try {
    const r = await recover(root);
    if (r) report(`recovery at start: ${r.message}`);
  } catch (e) {
    report(`recovery at start did not complete: ${e instanceof Error ? e.message : String(e)}`);
  }
}
