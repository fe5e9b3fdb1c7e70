import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

type LogLevel = 'debug' | 'info' | 'warning' | 'error';

/**
 * Logs go to stderr and, once attached and connected, to MCP logging. Never to stdout (JSON-RPC).
 * The server attaches the logger when the client has initialized: a `notifications/message`
 * before the `initialize` answer breaks clients that expect that answer first.
 */
export interface Logger {
  log(level: LogLevel, message: string, data?: Record<string, unknown>): void;
  attach(mcp: McpServer): void;
}

export function createLogger(opts: { stderr?: boolean; name?: string } = {}): Logger {
  const name = opts.name ?? 'copilot-onboarding';
  let mcp: McpServer | undefined;
  return {
    attach(m) {
      mcp = m;
    },
    log(level, message, data) {
      if (opts.stderr !== false) {
        process.stderr.write(`[${name}] ${level}: ${message}${data ? ` ${JSON.stringify(data)}` : ''}\n`);
      }
      if (mcp?.isConnected()) {
        void mcp.sendLoggingMessage({ level, logger: name, data: data ? { message, ...data } : message }).catch(() => undefined);
      }
    },
  };
}
