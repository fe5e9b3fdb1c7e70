/**
 * Crash recovery, run at server start, in status and before every gate: finish or undo an
 * interrupted migration or rollback. Recovery records every outcome it reaches in
 * onboarding.json itself (io/recovery), before it clears the journal; a recovery that acted is
 * also traced in the elicitation chain (action `recover`, outcome `recovered`), so the next
 * status reports it even when it ran at server start, where nobody saw its message.
 * A recovery that needs a person throws (io/recovery), touches nothing and is not traced.
 */
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { recoverInterrupted } from '../io/recovery.js';
import { TraceStore } from '../io/traces.js';
import { VERSION } from '../io/package.js';
import { appendGateTrace, gateTraceRecord, type GateChannel } from './gate-trace.js';

export interface Recovery {
  status: string;
  migrationId: string | null;
  message: string;
  /** Workspace-relative path of the trace of what recovery did (null when it could not be written; the message says why). */
  trace: string | null;
}

/** Who acted, in a recovery trace: the server itself, not a client. */
const RECOVERY_CLIENT = { name: 'copilot-onboarding recovery', version: VERSION };

/** Finish or undo an interrupted migration/rollback before doing anything else. */
export async function recover(root: string, channel: GateChannel = 'mcp'): Promise<Recovery | null> {
  const startedMs = Date.now();
  const r = await recoverInterrupted(root);
  if (r.status === 'none') return null;
  if (r.status === 'busy') {
    throw new OnboardingError(ErrorCode.BUSY, r.message, { next: 'Wait for the running migration or rollback to finish, then try again.' });
  }
  const migrationId = r.migrationId ?? null;
  // The files are already as recovery left them: a trace that cannot be written is reported, not fatal.
  try {
    const ref = await appendGateTrace(
      new TraceStore(root, 'elicitation'),
      gateTraceRecord({
        channel,
        action: 'recover',
        client: RECOVERY_CLIENT,
        message: r.message,
        schema: {},
        response: null,
        outcome: 'recovered',
        subject: { migrationId, recovery: r.status },
        error: null,
        startedMs,
        endedMs: Date.now(),
      }),
    );
    return { status: r.status, migrationId, message: r.message, trace: ref.path };
  } catch (e) {
    return { status: r.status, migrationId, message: `${r.message} (Its trace could not be written: ${e instanceof Error ? e.message : String(e)})`, trace: null };
  }
}

/**
 * Recovery at server start, before the first request: never fails the start (a busy lock or an
 * unusable backup is reported through `report` and again by status and every gate).
 */
export async function recoverAtStart(root: string, report: (message: string) => void): Promise<void> {
  try {
    const r = await recover(root, 'mcp');
    if (r) report(`recovery at start: ${r.message}`);
  } catch (e) {
    report(`recovery at start did not complete: ${e instanceof Error ? e.message : String(e)}`);
  }
}
