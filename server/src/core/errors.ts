/** Stable error codes. Messages follow: reason, then state, then the next step. */
export const ErrorCode = {
  PLAN_STALE: 'PLAN_STALE',
  PLAN_NOT_FOUND: 'PLAN_NOT_FOUND',
  PLAN_CORRUPT: 'PLAN_CORRUPT',
  /** The stored plan is not what this version makes from the workspace and the plan's overrides (forged, or made by another version). */
  PLAN_NOT_DERIVABLE: 'PLAN_NOT_DERIVABLE',
  NOT_APPROVED: 'NOT_APPROVED',
  APPROVAL_EXPIRED: 'APPROVAL_EXPIRED',
  ELICITATION_UNSUPPORTED: 'ELICITATION_UNSUPPORTED',
  NOT_CONFIRMED: 'NOT_CONFIRMED',
  BACKUP_CORRUPT: 'BACKUP_CORRUPT',
  BACKUP_MISSING: 'BACKUP_MISSING',
  BUSY: 'BUSY',
  STATE_CORRUPT: 'STATE_CORRUPT',
  TRACE_WRITE_FAILED: 'TRACE_WRITE_FAILED',
  TRACE_CHAIN_BROKEN: 'TRACE_CHAIN_BROKEN',
  /** The per-user trace key (outside the workspace) is unreadable, corrupted or open to other users. */
  TRACE_KEY_INVALID: 'TRACE_KEY_INVALID',
  SOURCE_REFUSED: 'SOURCE_REFUSED',
  NO_SOURCES: 'NO_SOURCES',
  NOTHING_TO_MIGRATE: 'NOTHING_TO_MIGRATE',
  NO_MIGRATION: 'NO_MIGRATION',
  PATH_OUTSIDE_WORKSPACE: 'PATH_OUTSIDE_WORKSPACE',
  INVALID_INPUT: 'INVALID_INPUT',
  WORKSPACE_INVALID: 'WORKSPACE_INVALID',
  VERIFY_FAILED: 'VERIFY_FAILED',
  INTERNAL: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export class OnboardingError extends Error {
  readonly code: ErrorCode;
  /** What the user or agent should do next. */
  readonly next?: string;
  readonly details?: Record<string, unknown>;
  constructor(code: ErrorCode, message: string, opts: { next?: string; details?: Record<string, unknown>; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'OnboardingError';
    this.code = code;
    this.next = opts.next;
    this.details = opts.details;
  }
}
