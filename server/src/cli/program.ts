/**
 * The CLI: one commander program, one error boundary. Errors map to exit codes; `--json`
 * commands print a machine-readable envelope.
 */
import { Command, CommanderError } from 'commander';
import { OnboardingError } from '../core/errors.js';
import { VERSION } from '../runtime/version.js';
import { serve } from './serve.js';
import { runDemo } from './demo.js';
import { CliExit, ExitCode, commandName, exitCodeFor, wantsJson, writeJson, type CliIo } from './common.js';

export type { CliIo } from './common.js';
import { registerRollbackCommand } from './rollback.js';
import { registerSchemasCommand } from './schemas.js';
import { registerStatusCommand } from './status.js';
import { registerTracesCommand } from './traces.js';
import { registerAnalyzeCommand } from './analyze.js';
import { registerProposeCommand } from './propose.js';

export function buildProgram(io: CliIo): Command {
  const program = new Command();
  program
    .name('copilot-onboarding')
    .description('Split a monolithic .github/copilot-instructions.md into Copilot path-specific instructions, with the human in control.')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .addHelpText(
      'after',
      '\nExit codes: 0 done; 1 declined or refused (nothing changed); 2 usage or invalid input; 3 verification failed (traces verify, schemas --check).',
    );

  program
    .command('serve', { isDefault: true })
    .description('Run the MCP server on stdio (the default command).')
    .option('-w, --workspace <dir>', 'workspace root (else COPILOT_ONBOARDING_WORKSPACE, the client roots, or the current folder)')
    .action(async (o: { workspace?: string }) => {
      await serve({ workspace: o.workspace, cwd: io.cwd, env: io.env });
    });

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
  const program = buildProgram(io);
  try {
    await program.parseAsync(io.argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    // --help / --version end through exitOverride with code 0; every other commander error is usage.
    if (e instanceof CommanderError) return e.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
    if (e instanceof CliExit) return e.exitCode;
    if (e instanceof OnboardingError) {
      const code = exitCodeFor(e);
      if (wantsJson(io.argv)) {
        writeJson(io.stdout, { ok: false, command: commandName(io.argv), error: { code: e.code, message: e.message, next: e.next ?? null }, exitCode: code });
      }
      io.stderr.write(`${e.code}: ${e.message}${e.next ? `\n${e.next}` : ''}\n`);
      return code;
    }
    if (wantsJson(io.argv)) {
      writeJson(io.stdout, { ok: false, command: commandName(io.argv), error: { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), next: null }, exitCode: 1 });
    }
    io.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
    return 1;
  }
}
