/**
 * The CLI: one commander program, one error boundary. Errors map to exit codes; `--json`
 * commands print a machine-readable envelope.
 *
 * Commands are loaded on first use: a client starts `serve` once per session, so the server's
 * start must not pay for the other commands (and what they pull in: tar, yaml, fs-extra, the
 * SDK client). `serve` (the default command) loads only itself, and with no option but
 * `--workspace` not even commander; any other command loads only itself, and the top-level help
 * (or an unknown command) all of them.
 */
import { parseArgs } from 'node:util';
import type { Command } from 'commander';
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

/** True when argv runs `serve`: named, or the default command (no command name before options). */
function isServe(argv: string[]): boolean {
  const first = argv[2];
  if (first === undefined || first === 'serve') return true;
  return first.startsWith('-') && !['-h', '--help', '-V', '--version'].includes(first);
}

/**
 * `serve` with at most `--workspace`: its options read without commander, which a client's start
 * then does not load. Anything else (help, an unknown option, an operand) goes through commander,
 * which reports it as before.
 */
function plainServe(argv: string[]): { workspace: string | undefined } | null {
  if (!isServe(argv) || argv.includes('--')) return null;
  try {
    const { values, positionals } = parseArgs({ args: argv.slice(2), options: { workspace: { type: 'string', short: 'w' } }, strict: true, allowPositionals: true });
    if (positionals.length > (positionals[0] === 'serve' ? 1 : 0)) return null;
    return { workspace: values.workspace };
  } catch {
    return null;
  }
}

async function buildProgram(io: CliIo): Promise<Command> {
  const { Command } = await import('commander');
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

  if (isServe(io.argv)) return program;

  // Any other command loads only itself; help, an unknown name or no name load every command.
  const named = io.argv[2];
  const wanted = named !== undefined && named in COMMANDS ? [named] : Object.keys(COMMANDS);
  for (const register of await Promise.all(wanted.map((name) => COMMANDS[name]!()))) register(program, io);
  return program;
}

/**
 * Run the CLI; resolves to the process exit code (serve keeps running and resolves 0).
 * Exit codes (see cli/common.ts): 0 ok, 1 declined/refused, 2 usage/invalid input, 3 verification failed.
 */
export async function runCli(io: CliIo): Promise<number> {
  try {
    const plain = plainServe(io.argv);
    if (plain) {
      const { serve } = await import('./serve.js');
      await serve({ workspace: plain.workspace, cwd: io.cwd, env: io.env });
    } else {
      const program = await buildProgram(io);
      await program.parseAsync(io.argv);
    }
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CliExit) return e.exitCode;
    // --help / --version end through exitOverride with code 0; every other commander error is usage.
    if (!(e instanceof OnboardingError)) {
      const { CommanderError } = await import('commander');
      if (e instanceof CommanderError) return e.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
    }
    const known = e instanceof OnboardingError;
    const error = known ? { code: e.code, message: e.message, next: e.next ?? null } : { code: 'INTERNAL', message: e instanceof Error ? e.message : String(e), next: null };
    const code = known ? exitCodeFor(e) : 1;
    // The error boundary runs outside the command, so --json is read from argv.
    if (io.argv.includes('--json')) writeJson(io.stdout, { ok: false, command: commandName(io.argv), error, exitCode: code });
    io.stderr.write(`${sanitizeLines(known ? `${error.code}: ${error.message}${error.next ? `\n${error.next}` : ''}` : `error: ${error.message}`)}\n`);
    return code;
  }
}
