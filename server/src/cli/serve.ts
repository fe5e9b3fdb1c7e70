import { configFromEnv } from '../runtime/config.js';
import { createLogger } from '../runtime/log.js';
import { createServer } from '../mcp/server.js';
import { guardedStdioTransport } from '../mcp/stdio-transport.js';
import { VERSION } from '../io/package.js';
import { journalPresent } from '../io/journal-present.js';
import { elicitationsSettled } from '../mcp/elicit.js';

/** How long a shutdown waits for the traces of forms that were open (a trace write takes milliseconds). */
const TRACE_GRACE_MS = 5_000;

/**
 * `copilot-onboarding serve`: MCP over stdio. Nothing but JSON-RPC is written to stdout, and
 * nothing at all before the client's `initialize` (the start-up line goes to stderr only).
 */
export async function serve(opts: { workspace?: string | undefined; cwd: string; env: NodeJS.ProcessEnv }): Promise<void> {
  const config = configFromEnv(opts.env);
  const workspace = opts.workspace ?? (opts.env.COPILOT_ONBOARDING_WORKSPACE || undefined);
  const log = createLogger();
  const { mcp } = createServer({ workspace, fallbackRoot: opts.cwd, config, log, version: VERSION });
  const transport = guardedStdioTransport({ maxMessageBytes: config.maxMessageBytes, log });
  let closing = false;
  const shutdown = (why: string) => {
    if (closing) return;
    closing = true;
    log.log('info', `shutting down (${why})`);
    // Closing cancels every open form; their traces (`cancelled`, disconnect) are written before exit.
    void mcp
      .close()
      .catch(() => undefined)
      .then(() => elicitationsSettled(TRACE_GRACE_MS))
      .finally(() => process.exit(0));
  };
  // StdioServerTransport does not watch for the end of stdin; a pending elicitation timer
  // would keep the process alive for days.
  process.stdin.on('end', () => shutdown('stdin ended'));
  process.stdin.on('close', () => shutdown('stdin closed'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  // Recovery acts only on a journal left behind; without one, its modules (backup, journal, traces) are not loaded at start.
  const startRoot = workspace ?? opts.cwd;
  if (await journalPresent(startRoot)) {
    const { recoverAtStart } = await import('../app/recover.js');
    await recoverAtStart(startRoot, (m) => log.log('info', m));
  }
  await mcp.connect(transport);
  log.log('info', `serving on stdio (version ${VERSION})`, { workspace: workspace ?? `(client roots, else ${opts.cwd})` });
}
