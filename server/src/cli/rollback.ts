/**
 * `copilot-onboarding rollback`: the operator's way to undo a migration when no agent is
 * around. The same gate as onboarding_rollback (app/rollback): the backup is checked against
 * its manifest before anyone is asked, the prompt lists what is restored / removed and which
 * files were edited since, the answer is traced in the same elicitation chain with
 * `channel: "cli"`, and anything that changed while the prompt was open refuses.
 * Security: no trace, no rollback (fail closed).
 */
import readline from 'node:readline/promises';
import type { Command } from 'commander';
import { NOTE_MAX_CHARS, ROLLBACK_SCHEMA } from '../core/approval.js';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { TraceStore } from '../io/traces.js';
import { rollbackGate } from '../app/rollback.js';
import { appendGateTrace, gateTraceRecord, traceRefusal } from '../app/gate-trace.js';
import { sanitizeLines } from '../core/sanitize.js';
import type { ElicitationOutcome } from '../schemas/trace.js';
import { VERSION } from '../io/package.js';
import { recover } from '../app/recover.js';
import { CliExit, ExitCode, jsonOk, resolveWorkspace, writeJson, type CliIo } from './common.js';

const CLI_CLIENT = { name: 'copilot-onboarding-cli', version: VERSION } as const;
const ROLLBACK_PROMPT = 'Roll back? [y/N] ';

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
  // Security: paths and ids come from the workspace; no escape sequence reaches the terminal.
  const say = (s: string) => (o.json ? io.stderr : io.stdout).write(`${sanitizeLines(s.replace(/\n$/, ''))}\n`);
  const refuse = (s: string) => io.stderr.write(`${sanitizeLines(s.replace(/\n$/, ''))}\n`);

  const recovered = await recover(root, 'cli');
  if (recovered) say(`Recovered an interrupted operation first: ${recovered.message}`);

  if (o.reason !== undefined && o.reason.length > NOTE_MAX_CHARS) {
    throw new OnboardingError(ErrorCode.INVALID_INPUT, `--reason is too long (${o.reason.length} characters; at most ${NOTE_MAX_CHARS}).`);
  }
  const store = new TraceStore(root, 'elicitation');
  const content = (confirmed: boolean) => ({ confirmed, ...(o.reason ? { reason: o.reason } : {}) });
  // Throws BACKUP_CORRUPT / BACKUP_MISSING / NO_MIGRATION before anyone is asked and before any
  // file is touched; such a refusal is traced too (outcome `refused`), like the MCP gate's.
  let asked = false;
  const gate = await rollbackGate(root, o.migration, async (prep) => {
    asked = true;
    say(prep.message);
    const started = Date.now();
    let a: { outcome: ElicitationOutcome; response: Record<string, unknown> | null; error: string | null; confirmation: 'tty' | '--yes' | 'none' };
    if (o.yes) {
      a = { confirmation: '--yes', outcome: 'approved', response: { action: 'accept', content: content(true) }, error: null };
      say('Confirmed by --yes.');
    } else if (io.isTTY && io.stdin) {
      const typed = await askYesNo(io.stdin, o.json ? io.stderr : io.stdout, ROLLBACK_PROMPT);
      a =
        typed.kind === 'yes'
          ? { confirmation: 'tty', outcome: 'approved', response: { action: 'accept', content: content(true) }, error: null }
          : typed.kind === 'no'
            ? { confirmation: 'tty', outcome: 'declined', response: { action: 'decline' }, error: null }
            : { confirmation: 'tty', outcome: 'cancelled', response: { action: 'cancel' }, error: 'stdin closed before an answer' };
    } else {
      a = { confirmation: 'none', outcome: 'unsupported', response: null, error: 'no TTY to ask on and --yes was not given' };
    }
    const record = gateTraceRecord({
      channel: 'cli',
      action: 'rollback',
      client: CLI_CLIENT,
      message: prep.message,
      schema: ROLLBACK_SCHEMA as unknown as Record<string, unknown>,
      response: a.response,
      outcome: a.outcome,
      subject: { migrationId: prep.migrationId, planId: prep.manifest.planId, planSha256: prep.manifest.planSha256, editedSinceMigration: prep.edited, confirmation: a.confirmation },
      error: a.error,
      startedMs: started,
      endedMs: Date.now(),
    });
    // No trace, no rollback: a failure here is TRACE_WRITE_FAILED (exit 1), nothing changed.
    const trace = await appendGateTrace(store, record);
    return { confirmed: a.outcome === 'approved', outcome: a.outcome, trace };
  }).catch(async (e: unknown) => {
    if (!asked && e instanceof OnboardingError) {
      const subject = { migrationId: o.migration ?? null };
      await traceRefusal(store, { channel: 'cli', action: 'rollback', client: CLI_CLIENT, outcome: 'refused', code: e.code, message: e.message, subject, atMs: Date.now() }).catch(
        () => undefined, // the refusal itself is reported below; an untraceable refusal changes nothing either
      );
    }
    throw e;
  });

  const { prep, answer } = gate;
  const { outcome, trace } = answer;
  const base = { workspace: root, migrationId: prep.migrationId, editedSinceMigration: prep.edited, outcome, trace: trace.path };
  if (gate.kind === 'not-confirmed') {
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
  if (gate.kind === 'changed') {
    const why = `Not rolled back: ${gate.reason} Nothing was changed; run the command again to see the current list.`;
    refuse(why);
    if (o.json) writeJson(io.stdout, { ok: false, command: 'rollback', data: { ...base, rolledBack: false, restored: [], removed: [], editedSinceMigration: gate.current.edited }, exitCode: ExitCode.REFUSED });
    throw new CliExit(ExitCode.REFUSED, why);
  }
  if (o.json) {
    writeJson(io.stdout, jsonOk('rollback', { ...base, rolledBack: true, restored: gate.restored, removed: gate.removed, savedEdits: gate.saved }));
    return;
  }
  say(
    [
      `Rolled back migration ${prep.migrationId}.`,
      ...gate.restored.map((p) => `  restored ${p}`),
      ...gate.removed.map((p) => `  removed  ${p}`),
      ...(gate.saved.length ? [`Files edited since the migration were saved first: ${gate.saved.join(', ')}`] : []),
      `Trace: ${trace.path}`,
    ].join('\n'),
  );
}

/** Ask on the given streams; only "y" or "yes" is yes. End of input or Ctrl-C is `eof`. */
async function askYesNo(input: NodeJS.ReadableStream, output: NodeJS.WritableStream, prompt: string): Promise<Answer> {
  const rl = readline.createInterface({ input, output });
  try {
    // The first of these settles the answer (a promise resolves once).
    return await new Promise<Answer>((settle) => {
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
