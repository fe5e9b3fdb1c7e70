/**
 * Stable error codes. Messages follow: reason, then state, then the next step.
 * ERROR_DOCS says what each code means and what to do; docs/errors.md is rendered from it
 * (`errorsMarkdown()`, kept current by test/unit/errors-doc.test.ts).
 */
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
  /** No migrate trace authenticated with the per-user key records a person confirming this migration of this plan. */
  MIGRATION_UNCONFIRMED: 'MIGRATION_UNCONFIRMED',
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
  NOT_ANSWERED: 'NOT_ANSWERED',
  WORKSPACE_INVALID: 'WORKSPACE_INVALID',
  VERIFY_FAILED: 'VERIFY_FAILED',
  DISK_FULL: 'DISK_FULL',
  INTERNAL: 'INTERNAL',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** What every code means and the usual next step (each error's own `next` is more specific). */
export const ERROR_DOCS = {
  PLAN_STALE: { meaning: 'A source instruction file changed since the plan was proposed (or a file the plan would create appeared).', next: 'Run onboarding_propose again, then approve the new plan.' },
  PLAN_NOT_FOUND: { meaning: 'There is no current plan, or the plan named does not exist in .copilot-state/plans/.', next: 'Run onboarding_propose first.' },
  PLAN_CORRUPT: { meaning: 'The stored plan file does not parse, does not match the plan schema, or a content does not match its recorded sha256 and size.', next: 'Run onboarding_propose again (the old plan file may be deleted).' },
  PLAN_NOT_DERIVABLE: { meaning: 'The stored plan is not what this version makes from the workspace and the plan\'s overrides: it was edited, forged, or made by another version.', next: 'Run onboarding_propose again and approve the new plan.' },
  NOT_APPROVED: { meaning: 'No approval of exactly this plan is in an intact trace chain, or the approval was already used by a migration.', next: 'Run onboarding_approve (a person answers the form), then onboarding_migrate.' },
  APPROVAL_EXPIRED: { meaning: 'The approval of this plan is older than the approval TTL.', next: 'Run onboarding_approve again.' },
  ELICITATION_UNSUPPORTED: { meaning: 'The MCP client did not declare form elicitation, so no person can be asked; every gate refuses before any other check.', next: 'Use a client with elicitation (see docs/clients.md); for rollback, `copilot-onboarding rollback` in a terminal.' },
  NOT_CONFIRMED: { meaning: 'The person declined or cancelled the form, the form timed out, or the answer was not an explicit yes.', next: 'Nothing changed; call the tool again when the person wants to go ahead.' },
  NOT_ANSWERED: { meaning: 'question_ask got no answer (declined, cancelled, timed out, or an answer that is not text within the size limit); nothing was saved.', next: 'Do not assume an answer; ask again later or continue without it.' },
  BACKUP_CORRUPT: { meaning: 'A backup archive or manifest does not match its recorded hashes, cannot be read, or cannot be used for the migration it names.', next: 'Restore .copilot-state/backups/ from a copy, or restore the instruction files from version control.' },
  BACKUP_MISSING: { meaning: 'The backup of the migration to roll back or recover is not in .copilot-state/backups/.', next: 'Check the migration id with `copilot-onboarding status`; restore the backup from a copy, or the files from version control.' },
  MIGRATION_UNCONFIRMED: {
    meaning:
      'Rollback or recovery found no migrate trace that authenticates with your per-user trace key and names this migration and its plan SHA-256: the plan, backup or journal in .copilot-state/ was not written by a migration you confirmed (forged), or the key is missing or another one (another machine or user, or the key file moved). Nothing is written.',
    next: 'If the key file was moved, put it back and try again. Otherwise check .copilot-state/ for tampering; restore the instruction files from version control (or by hand from the backup archive, after checking what it holds), then delete .copilot-state/journal.json if there is one.',
  },
  BUSY: { meaning: 'Another process holds the workspace lock (a migration, rollback or recovery is running).', next: 'Wait for it to finish, then try again.' },
  STATE_CORRUPT: { meaning: '.copilot-state/onboarding.json (or the workspace id) cannot be read or does not match its schema; it is never rewritten or reset.', next: 'Restore onboarding.json from a copy or move it aside; the instruction files were not touched.' },
  TRACE_WRITE_FAILED: { meaning: 'A gate could not write its trace record, so it failed closed: no decision was acted on.', next: 'Check that .copilot-state/elicitation-traces/ is writable (and the disk has space), then try again.' },
  TRACE_KEY_INVALID: { meaning: 'The per-user trace key (in your config folder, outside the workspace) is open to other users, not 64 hex digits, or not a regular file; it is never replaced or used.', next: 'Fix the key file as the message says (mode 0600, owned by you), or move it away so a new key is made; approvals made with the old key must then be given again.' },
  TRACE_CHAIN_BROKEN: { meaning: 'The trace chain does not verify (a record was changed, removed or inserted), so no approval in it is trusted.', next: 'Run `copilot-onboarding traces verify` to see which file is wrong; restore it, or start over in a fresh state folder.' },
  SOURCE_REFUSED: { meaning: 'A source instruction file cannot be read safely (a symlink out of the workspace, not a regular file, too large, or not UTF-8).', next: 'Fix the file as the reason says, then run onboarding_propose again.' },
  NO_SOURCES: { meaning: 'The workspace has no .github/copilot-instructions.md nor other instruction file to work on.', next: 'Check the workspace folder (--workspace, COPILOT_ONBOARDING_WORKSPACE or the client root).' },
  NOTHING_TO_MIGRATE: { meaning: 'The plan has no operations: no section has a confident path scope, or the repository is already migrated.', next: 'Give overrides to onboarding_propose to move sections, or stop here.' },
  NO_MIGRATION: { meaning: 'There is no live migration to roll back (none yet, already rolled back, or not the newest).', next: 'Nothing to do, or roll back the newest migration first.' },
  PATH_OUTSIDE_WORKSPACE: { meaning: 'A path (or a symlink on the way to it) leads outside the workspace or its state folder.', next: 'Replace the link with a folder inside the workspace, then try again.' },
  INVALID_INPUT: {
    meaning:
      "An argument is malformed: an override, a glob, a migration id, a question, or a CLI option value; or overrides contradict each other (two shared-rules choices, two pointers for one file, a pointer against the choice), or the person's saved answer to the shared-rules question is none of the allowed answers or is contradicted by an override (the message names the answer's file).",
    next: 'Fix the argument as the message says; for a saved answer, ask the question again with question_ask (the newest answer counts).',
  },
  WORKSPACE_INVALID: { meaning: 'The workspace folder is missing, a file, or cannot be read.', next: 'Point --workspace (or COPILOT_ONBOARDING_WORKSPACE) at a repository folder you can read.' },
  VERIFY_FAILED: { meaning: 'A check after writing failed (the migrated files on disk, or stale generated schemas); a migration is put back from its backup.', next: 'Report it as a bug with the plan file; run onboarding_propose again.' },
  DISK_FULL: { meaning: 'The disk (or quota) holding the named folder is full; the file being written was removed and a partial backup is discarded.', next: 'Free space on that disk, then run the same command again.' },
  INTERNAL: { meaning: 'An unexpected error (a bug); the message says what failed.', next: 'Run onboarding_status to see the workspace state, and report the message.' },
} as const satisfies Record<ErrorCode, { meaning: string; next: string }>;

/** docs/errors.md: every code, its meaning and its next step, in the order of ErrorCode. */
export function errorsMarkdown(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '# Error codes',
    '',
    '<!-- Generated from server/src/core/errors.ts (ERROR_DOCS) by test/unit/errors-doc.test.ts; do not edit by hand.',
    '     After changing a code, run `npx vitest run test/unit/errors-doc.test.ts -u` and review the diff. -->',
    '',
    'Every refusal names one of these codes: the MCP tools as `CODE: message` with `isError: true` (and',
    '`error.code` in `structuredContent` where the tool has it), the CLI on stderr and in `--json` as',
    '`error.code`. Each error also carries its own next step, more specific than the one below.',
    '',
    '| code | meaning | next step |',
    '|---|---|---|',
    ...Object.values(ErrorCode).map((c) => `| \`${c}\` | ${cell(ERROR_DOCS[c].meaning)} | ${cell(ERROR_DOCS[c].next)} |`),
    '',
  ].join('\n');
}

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
