/**
 * The CLI: one commander program, one error boundary. Errors map to exit codes; `--json`
 * commands print a machine-readable envelope.
 *
 * Commands are loaded on first use: a client starts `serve` once per session, so the server's
 * start must not pay for the other commands (and what they pull in: tar, yaml, fs-extra, the
 * SDK client). `serve` (the default command) loads only itself; any other command, and the
 * top-level help, load them all.
 */
import { Command, CommanderError } from 'commander';
import { OnboardingError } from '../core/errors.js';
import { VERSION } from '../runtime/version.js';
import { CliExit, ExitCode, commandName, exitCodeFor, writeJson, type CliIo } from './common.js';

/** True when argv runs `serve`: named, or the default command (no command name before options). */
function isServe(argv: string[]): boolean {
  const first = argv[2];
  if (first === undefined || first === 'serve') return true;
  return first.startsWith('-') && !['-h', '--help', '-V', '--version'].includes(first);
}

async function buildProgram(io: CliIo): Promise<Command> {
  const program = new Command();
  program
    .name('copilot-onboarding')
    .description('Split a monolithic .github/copilot-instructions.md into Copilot path-specific instructions, with the human in control.')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .addHelpText(
      'after',
      '\nExit codes: 0 done; 1 declined or refused (nothing changed); 2 usage or invalid input; 3 verification failed (traces verify, schemas --check); 10 a migration is proposed (analyze/propose).',
    );

  program
    .command('serve', { isDefault: true })
    .description('Run the MCP server on stdio (the default command).')
    .option('-w, --workspace <dir>', 'workspace root (else COPILOT_ONBOARDING_WORKSPACE, the client roots, or the current folder)')
    .action(async (o: { workspace?: string }) => {
      const { serve } = await import('./serve.js');
      await serve({ workspace: o.workspace, cwd: io.cwd, env: io.env });
    });

  if (isServe(io.argv)) return program;

  const [{ runDemo }, { registerStatusCommand }, { registerTracesCommand }, { registerRollbackCommand }, { registerSchemasCommand }, { registerAnalyzeCommand }, { registerProposeCommand }] =
    await Promise.all([import('./demo.js'), import('./status.js'), import('./traces.js'), import('./rollback.js'), import('./schemas.js'), import('./analyze.js'), import('./propose.js')]);
  program
    .command('demo')
    .description('Run the whole flow (analyze, propose, approve, migrate, verify, rollback) on a bundled example repository.')
    .option('-y, --yes', 'answer yes to every form (the default without a TTY)')
    .option('--keep', 'keep the temporary workspace')
    .option('--save-state <dir>', 'copy the resulting .copilot-state/ folder to <dir>')
    .option('--example <dir>', 'use this folder instead of the bundled example')
    .action(async (o: { yes?: boolean; keep?: boolean; saveState?: string; example?: string }) => {
      const code = await runDemo(
        { stdout: io.stdout, stdin: io.stdin ?? process.stdin, isTTY: io.isTTY ?? false, env: io.env },
        { yes: Boolean(o.yes), keep: Boolean(o.keep), saveState: o.saveState, example: o.example },
      );
      if (code !== 0) process.exitCode = code;
    });

  registerStatusCommand(program, io);
  registerTracesCommand(program, io);
  registerRollbackCommand(program, io);
  registerSchemasCommand(program, io);
  registerAnalyzeCommand(program, io);
  registerProposeCommand(program, io);

  return program;
}

/**
 * Run the CLI; resolves to the process exit code (serve keeps running and resolves 0).
 * Exit codes (see cli/common.ts): 0 ok, 1 declined/refused, 2 usage/invalid input, 3 verification failed.
 */
export async function runCli(io: CliIo): Promise<number> {
  try {
    const program = await buildProgram(io);
    await program.parseAsync(io.argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    // --help / --version end through exitOverride with code 0; every other commander error is usage.
    if (e instanceof CommanderError) return e.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
    if (e instanceof CliExit) return e.exitCode;
    const known = e instanceof OnboardingError;
    const error = known ? { code: e.code, message: e.message, next: e.next ?? null } : { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), next: null };
    const code = known ? exitCodeFor(e) : 1;
    // The error boundary runs outside the command, so --json is read from argv.
    if (io.argv.includes('--json')) writeJson(io.stdout, { ok: false, command: commandName(io.argv), error, exitCode: code });
    io.stderr.write(known ? `${error.code}: ${error.message}${error.next ? `\n${error.next}` : ''}\n` : `error: ${error.message}\n`);
    return code;
  }
}
