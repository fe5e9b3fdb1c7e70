/**
 * `copilot-onboarding rollback`: the operator's way to undo a migration when no agent is
 * around. Same steps as onboarding_rollback (CONTRACT §6): the backup is checked against its
 * manifest before anyone is asked, the prompt lists what is restored / removed and which
 * files were edited since, and the answer is traced in the same elicitation chain with
 * `channel: "cli"` before anything changes — no trace, no rollback (fail closed).
 */
import readline from 'node:readline/promises';
import type { Command } from 'commander';
import { NOTE_MAX_CHARS, ROLLBACK_SCHEMA } from '../core/approval.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { appendOrFailClosed } from '../mcp/elicit.js';
import { TraceStore } from '../io/traces.js';
import { commitRollback, prepareRollback, type PreparedRollback } from '../app/rollback.js';
import type { ElicitationOutcome, ElicitationTrace } from '../schemas/trace.js';
import { VERSION } from '../runtime/version.js';
import { recover } from '../app/recover.js';
import { CliExit, ExitCode, jsonOk, resolveWorkspace, writeJson, type CliIo } from './common.js';

export const CLI_CLIENT = { name: 'copilot-onboarding-cli', version: VERSION } as const;
export const ROLLBACK_PROMPT = 'Roll back? [y/N] ';

interface RollbackOpts {
  workspace?: string;
  migration?: string;
  yes?: boolean;
  reason?: string;
  json?: boolean;
}

type Answer = { kind: 'yes' | 'no'; typed: string } | { kind: 'eof' };

export function registerRollbackCommand(program: Command, io: CliIo): void {
  program
    .command('rollback')
    .description('Undo a migration from its backup, after confirming on the terminal (refuses without a TTY unless --yes).')
    .option('-w, --workspace <dir>', 'workspace root (else COPILOT_ONBOARDING_WORKSPACE, else the current folder)')
    .option('--migration <id>', 'the migration to undo (default: the last one not rolled back)')
    .option('-y, --yes', 'confirm without asking (needed when there is no TTY); recorded in the trace')
    .option('--reason <text>', 'why you are rolling back (recorded in the trace)')
    .option('--json', 'print a JSON envelope {ok, command, data}; the prompt goes to stderr')
    .action(async (o: RollbackOpts) => {
      await runRollback(io, o);
    });
}

async function runRollback(io: CliIo, o: RollbackOpts): Promise<void> {
  const root = resolveWorkspace(o.workspace, io);
  // Human-readable text goes to stderr with --json so stdout stays one JSON document.
  const say = (s: string) => (o.json ? io.stderr : io.stdout).write(s.endsWith('\n') ? s : `${s}\n`);
  const refuse = (s: string) => io.stderr.write(s.endsWith('\n') ? s : `${s}\n`);

  const recovered = await recover(root);
  if (recovered) say(`Recovered an interrupted operation first: ${recovered.message}`);

  if (o.reason !== undefined && o.reason.length > NOTE_MAX_CHARS) {
    throw new OnboardingError(ErrorCode.INVALID_INPUT, `--reason is too long (${o.reason.length} characters; at most ${NOTE_MAX_CHARS}).`);
  }
  // Throws BACKUP_CORRUPT / BACKUP_MISSING / NO_MIGRATION before anyone is asked and before any file is touched.
  const prep = await prepareRollback(root, o.migration);
  say(prep.message);

  const started = Date.now();
  const timestamp = new Date(started).toISOString();
  let outcome: ElicitationOutcome;
  let response: Record<string, unknown> | null;
  let error: string | null = null;
  let confirmation: 'tty' | '--yes' | 'none';
  const content = (confirmed: boolean) => ({ confirmed, ...(o.reason ? { reason: o.reason } : {}) });

  if (o.yes) {
    confirmation = '--yes';
    outcome = 'approved';
    response = { action: 'accept', content: content(true) };
    say('Confirmed by --yes.');
  } else if (io.isTTY && io.stdin) {
    confirmation = 'tty';
    const a = await askYesNo(io.stdin, o.json ? io.stderr : io.stdout, ROLLBACK_PROMPT);
    if (a.kind === 'yes') {
      outcome = 'approved';
      response = { action: 'accept', content: content(true) };
    } else if (a.kind === 'no') {
      outcome = 'declined';
      response = { action: 'decline' };
    } else {
      outcome = 'cancelled';
      response = { action: 'cancel' };
      error = 'stdin closed before an answer';
    }
  } else {
    confirmation = 'none';
    outcome = 'unsupported';
    response = null;
    error = 'no TTY to ask on and --yes was not given';
  }

  const unsealed: Omit<ElicitationTrace, 'seq' | 'prev_sha256' | 'sha256'> = {
    format: 'copilot-onboarding/elicitation-trace@1',
    timestamp,
    action: 'rollback',
    channel: 'cli',
    client: { ...CLI_CLIENT },
    message: prep.message,
    schema: ROLLBACK_SCHEMA as unknown as Record<string, unknown>,
    response,
    outcome,
    subject: subjectOf(prep, confirmation),
    duration_ms: Date.now() - started,
    error,
  };
  // No trace, no rollback: a failure here is TRACE_WRITE_FAILED (exit 1), nothing changed.
  const trace = await appendOrFailClosed(new TraceStore(root, 'elicitation'), unsealed);

  const base = { workspace: root, migrationId: prep.migrationId, editedSinceMigration: prep.edited, outcome, trace: trace.path };
  if (outcome !== 'approved') {
    const why =
      outcome === 'unsupported'
        ? 'Refused: there is no terminal to confirm on. Re-run with --yes to confirm non-interactively (recorded in the trace).'
        : outcome === 'cancelled'
          ? 'Cancelled: no answer was given.'
          : 'Declined.';
    refuse(`${why} Not rolled back; nothing was changed. Trace: ${trace.path}`);
    if (o.json) writeJson(io.stdout, { ok: false, command: 'rollback', data: { ...base, rolledBack: false, restored: [], removed: [] }, exitCode: ExitCode.REFUSED });
    throw new CliExit(ExitCode.REFUSED, why);
  }

  // Re-check right before acting: the backup is still intact and nobody edited a migrated file while the question was open.
  const now = await prepareRollback(root, prep.migrationId);
  const newlyEdited = now.edited.filter((f) => !prep.edited.includes(f));
  if (newlyEdited.length) {
    const why = `Not rolled back: ${newlyEdited.join(', ')} changed while the question was open, and those edits were not shown to you. Nothing was changed; run the command again to see the current list.`;
    refuse(why);
    if (o.json) writeJson(io.stdout, { ok: false, command: 'rollback', data: { ...base, rolledBack: false, restored: [], removed: [], editedSinceMigration: now.edited }, exitCode: ExitCode.REFUSED });
    throw new CliExit(ExitCode.REFUSED, why);
  }
  const done = await commitRollback(root, now);
  if (o.json) {
    writeJson(io.stdout, jsonOk('rollback', { ...base, rolledBack: true, restored: done.restored, removed: done.removed }));
    return;
  }
  say(
    [
      `Rolled back migration ${prep.migrationId}.`,
      ...done.restored.map((p) => `  restored ${p}`),
      ...done.removed.map((p) => `  removed  ${p}`),
      ...(prep.edited.length ? [`Edits made since the migration were discarded: ${prep.edited.join(', ')}`] : []),
      `Trace: ${trace.path}`,
    ].join('\n'),
  );
}

function subjectOf(prep: PreparedRollback, confirmation: string): Record<string, unknown> {
  return {
    migrationId: prep.migrationId,
    planId: prep.manifest.planId,
    planSha256: prep.manifest.planSha256,
    editedSinceMigration: prep.edited,
    confirmation,
  };
}

/** Ask on the given streams; only "y" or "yes" is yes. End of input or Ctrl-C is `eof`. */
export async function askYesNo(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, prompt: string): Promise<Answer> {
  const rl = readline.createInterface({ input, output });
  try {
    return await new Promise<Answer>((resolve) => {
      let settled = false;
      const settle = (a: Answer) => {
        if (!settled) {
          settled = true;
          resolve(a);
        }
      };
      rl.once('close', () => settle({ kind: 'eof' }));
      rl.once('SIGINT', () => {
        output.write('\n');
        settle({ kind: 'eof' });
      });
      rl.question(prompt).then(
        (typed) => settle({ kind: /^\s*y(es)?\s*$/i.test(typed) ? 'yes' : 'no', typed: typed.trim() }),
        () => settle({ kind: 'eof' }),
      );
    });
  } finally {
    rl.close();
  }
}
