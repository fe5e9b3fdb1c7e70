/**
 * The CLI's commander program and its error boundary, loaded by cli/program.ts for every command
 * line but a plain `serve` (and for any error): a client starts `serve` once per session, and its
 * start loads neither commander nor what the boundary needs (the error texts, the sanitizer, the
 * package version). Errors map to exit codes; `--json` commands print a machine-readable envelope.
 */
import { Command, CommanderError } from 'commander';
import { OnboardingError } from '../core/errors.js';
import { sanitizeLines } from '../core/sanitize.js';
import { VERSION } from '../io/package.js';
import { CliExit, ExitCode, commandName, exitCodeFor, writeJson, type CliIo } from './common.js';

type Register = (program: Command, io: CliIo) => void;

/** Every command but serve, in help order, each loaded on first use. */
const COMMANDS: Record<string, () => Promise<Register>> = {
  demo: async () => registerDemoCommand,
  status: async () => (await import('./status.js')).registerStatusCommand,
  traces: async () => (await import('./traces.js')).registerTracesCommand,
  rollback: async () => (await import('./rollback.js')).registerRollbackCommand,
  schemas: async () => (await import('./schemas.js')).registerSchemasCommand,
  analyze: async () => (await import('./analyze.js')).registerAnalyzeCommand,
  propose: async () => (await import('./propose.js')).registerProposeCommand,
  explain: async () => (await import('./explain.js')).registerExplainCommand,
};

function registerDemoCommand(program: Command, io: CliIo): void {
  program
    .command('demo')
    .description('Run the whole flow (analyze, propose, approve, migrate, verify, rollback) on a bundled example repository.')
    .option('-y, --yes', 'answer yes to every form (the default without a TTY)')
    .option('--keep', 'keep the temporary workspace')
    .option('--save-state <dir>', 'copy the resulting .copilot-state/ folder to <dir>')
    .option('--example <dir>', 'use this folder instead of the bundled example')
    .action(async (o: { yes?: boolean; keep?: boolean; saveState?: string; example?: string }) => {
      const { runDemo } = await import('./demo.js');
      const code = await runDemo(
        { stdout: io.stdout, stdin: io.stdin ?? process.stdin, isTTY: io.isTTY ?? false, env: io.env },
        { yes: Boolean(o.yes), keep: Boolean(o.keep), saveState: o.saveState, example: o.example },
      );
      if (code !== 0) process.exitCode = code;
    });
}

/**
 * The commander program for `argv`: serve only when `serveOnly` (argv runs serve), else the named
 * command (help, an unknown name or no name: every command).
 */
export async function buildProgram(io: CliIo, serveOnly: boolean): Promise<Command> {
  const program = new Command();
  program
    .name('copilot-onboarding')
    .description('Split a monolithic .github/copilot-instructions.md into Copilot path-specific instructions, with the human in control.')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .addHelpText(
      'after',
      '\nExit codes: 0 done; 1 declined or refused (nothing changed); 2 usage or invalid input; 3 verification failed (traces verify, schemas --check); 10 a migration is proposed (propose only; analyze exits 0 or an error code).',
    );

  program
    .command('serve', { isDefault: true })
    .description('Run the MCP server on stdio (the default command).')
    .option('-w, --workspace <dir>', 'workspace root (else COPILOT_ONBOARDING_WORKSPACE, the client roots, or the current folder)')
    .action(async (o: { workspace?: string }) => {
      const { serve } = await import('./serve.js');
      await serve({ workspace: o.workspace, cwd: io.cwd, env: io.env });
    });

  if (serveOnly) return program;

  // Any other command loads only itself; help, an unknown name or no name load every command.
  const named = io.argv[2];
  const wanted = named !== undefined && named in COMMANDS ? [named] : Object.keys(COMMANDS);
  for (const register of await Promise.all(wanted.map((name) => COMMANDS[name]!()))) register(program, io);
  return program;
}

/** The error boundary: what a command threw, as an exit code and a message (JSON with --json). */
export function reportError(e: unknown, io: CliIo): number {
  if (e instanceof CliExit) return e.exitCode;
  // --help / --version end through exitOverride with code 0; every other commander error is usage.
  if (e instanceof CommanderError && !(e instanceof OnboardingError)) return e.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
  const known = e instanceof OnboardingError;
  const error = known ? { code: e.code, message: e.message, next: e.next ?? null } : { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), next: null };
  const code = known ? exitCodeFor(e) : 1;
  // The error boundary runs outside the command, so --json is read from argv.
  if (io.argv.includes('--json')) writeJson(io.stdout, { ok: false, command: commandName(io.argv), error, exitCode: code });
  io.stderr.write(`${sanitizeLines(known ? `${error.code}: ${error.message}${error.next ? `\n${error.next}` : ''}` : `error: ${error.message}`)}\n`);
  return code;
}
