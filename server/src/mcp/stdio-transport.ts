/**
 * The stdio transport: the SDK's StdioServerTransport, behind a line filter that answers what
 * the SDK would drop in silence. The SDK's reader ignores a line it cannot parse or validate (no
 * reply, nothing logged), executes any request before `initialize`, and concatenates its whole
 * buffer again for every chunk of a long line, so one oversized message freezes the server for
 * as long as it takes to arrive. The filter splits stdin into lines itself and hands the SDK only
 * lines that are one valid JSON-RPC message each; everything else gets its JSON-RPC error, and
 * is logged. Batches are refused: MCP has had none since protocol version 2025-06-18. A line
 * over the bound is counted and dropped as it arrives, never buffered, and answered with its own
 * id when its first or last bytes name it. An `initialize` with invalid params gets -32602 with
 * a one-line message and is not handed on (the session stays uninitialized); nothing the server
 * asks or announces is written before the initialize answer.
 * Security: the bound keeps a client (or whatever writes to the pipe) from making the server
 * hold and re-copy an unbounded line in memory.
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { InitializeRequestSchema, JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../runtime/log.js';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INVALID_PARAMS = -32602;

type Id = string | number | null;

interface GuardedStdioOptions {
  stdin?: Readable;
  stdout?: Writable;
  /** Longest accepted line in bytes (without its newline). */
  maxMessageBytes: number;
  log: Logger;
}

/** A StdioServerTransport fed through the line filter; connect it like the SDK's own. */
export function guardedStdioTransport(opts: GuardedStdioOptions): StdioServerTransport {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const toSdk = new PassThrough();
  const transport = new StdioServerTransport(toSdk, stdout);
  let initialized = false;
  /** The id of the accepted initialize request, and whether its answer has been written. */
  let initId: Id | undefined;
  let initAnswered = false;
  const held: Array<{ message: JSONRPCMessage; resolve: () => void; reject: (e: unknown) => void }> = [];

  const refuse = (code: number, id: Id, message: string): void => {
    opts.log.log('warning', `refused a JSON-RPC message: ${message}`, { code, id });
    stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  };

  const onLine = (line: string): void => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      refuse(PARSE_ERROR, null, 'Parse error: the line is not valid JSON');
      return;
    }
    if (Array.isArray(value)) {
      refuse(INVALID_REQUEST, null, 'Invalid Request: JSON-RPC batches are not supported; send one message per line');
      return;
    }
    const id = idOf(value);
    if (!JSONRPCMessageSchema.safeParse(value).success) {
      refuse(INVALID_REQUEST, id, 'Invalid Request: not a JSON-RPC 2.0 request, notification or response');
      return;
    }
    const method = (value as { method?: unknown }).method;
    if (method === 'initialize') {
      const parsed = InitializeRequestSchema.safeParse(value);
      if (!parsed.success) {
        // Not handed to the SDK: the session stays uninitialized and the client may try again.
        refuse(INVALID_PARAMS, id, `Invalid params: initialize ${oneLine(parsed.error.issues[0])}`);
        return;
      }
      initialized = true;
      initId = id;
    } else if (method === 'notifications/initialized' && !initialized) {
      opts.log.log('warning', 'dropped notifications/initialized sent before initialize');
      return;
    } else if (!initialized && id !== null && typeof method === 'string' && method !== 'ping') {
      refuse(INVALID_REQUEST, id, `Invalid Request: "${method}" before initialize; the client must send initialize first`);
      return;
    }
    toSdk.write(`${line}\n`);
  };

  /**
   * An oversized line that is a response to one of our requests (a person's form answer, say)
   * cannot be answered with an error; the request it answers would wait for its timeout. Its
   * first and last bytes (kept while the rest is only counted) name its id, so the SDK is handed
   * an error response for that id instead: the pending request fails at once and its gate
   * traces the outcome `error`.
   */
  const oversizedLine = (head: string, tail: string, bytes: number): void => {
    const message = `Invalid Request: message of ${bytes} bytes is longer than the limit of ${opts.maxMessageBytes} bytes`;
    const id = responseIdOf(head, tail);
    if (id === undefined) {
      // A request is answered with its own id when its first or last bytes name it.
      refuse(INVALID_REQUEST, requestIdOf(head, tail), message);
      return;
    }
    opts.log.log('warning', `refused an oversized JSON-RPC response: ${message}`, { id });
    toSdk.write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message } })}\n`);
  };

  // Line splitting with a bound: `parts` holds the current line's bytes until its newline;
  // once the line is over the bound, only its first bytes (`head`) and its last (`tail`) are kept.
  let parts: Buffer[] = [];
  let size = 0;
  let oversized = false;
  let head = '';
  let tail = Buffer.alloc(0);
  const onData = (chunk: Buffer): void => {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl;
      size += end - start;
      if (!oversized && size > opts.maxMessageBytes) {
        oversized = true;
        head = Buffer.concat([...parts, chunk.subarray(start, end)]).subarray(0, EDGE_BYTES).toString('utf8');
        parts = [];
      }
      if (!oversized) parts.push(chunk.subarray(start, end));
      else tail = Buffer.concat([tail, chunk.subarray(Math.max(start, end - EDGE_BYTES), end)]).subarray(-EDGE_BYTES);
      if (nl === -1) break;
      if (oversized) {
        oversizedLine(head, tail.toString('utf8').replace(/\r$/, ''), size);
        head = '';
        tail = Buffer.alloc(0);
      } else {
        onLine(Buffer.concat(parts).toString('utf8').replace(/\r$/, ''));
      }
      parts = [];
      size = 0;
      oversized = false;
      start = nl + 1;
    }
  };
  /**
   * Nothing the server asks or announces (a ping, a roots request, a log line) is written before
   * the initialize answer: a client that sends `notifications/initialized` in the same chunk as
   * `initialize` would otherwise see the server's first request before the answer. Such
   * messages are held and written, in order, right after it.
   */
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    if (initAnswered) return send(message);
    const m = message as { id?: unknown; method?: unknown; result?: unknown; error?: unknown };
    if (m.method === undefined && initId !== undefined && m.id === initId && (m.result !== undefined || m.error !== undefined)) {
      await send(message);
      if (m.result !== undefined) {
        initAnswered = true;
        for (const h of held.splice(0)) send(h.message).then(h.resolve, h.reject);
      }
      return;
    }
    if (m.method !== undefined) return new Promise<void>((resolve, reject) => held.push({ message, resolve, reject }));
    return send(message);
  };
  stdin.on('data', onData);
  stdin.on('end', () => toSdk.end());
  const close = transport.close.bind(transport);
  transport.close = async () => {
    stdin.off('data', onData);
    if (stdin.listenerCount('data') === 0) stdin.pause();
    await close();
  };
  return transport;
}

/** How many bytes of an oversized line's start and end are kept to recognise it. */
const EDGE_BYTES = 256;

/**
 * The id of an oversized line when it is a JSON-RPC response (`result` or `error`, no `method`,
 * at its start), read from its first or last bytes; undefined for anything else.
 */
function responseIdOf(head: string, tail: string): Id | undefined {
  if (!/"(result|error)"\s*:/.test(head) || /"method"\s*:/.test(head)) return undefined;
  const ID = /"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,200}")/;
  const before = ID.exec(head.slice(0, head.search(/"(result|error)"\s*:/)));
  const after = new RegExp(`${ID.source}\\s*}\\s*$`).exec(tail);
  const raw = before?.[1] ?? after?.[1];
  return raw === undefined ? undefined : (JSON.parse(raw) as string | number);
}

/**
 * The id of an oversized line that is a request (`method` at its start): an `id` before its
 * `params` in the first bytes, or as the last member in the last bytes; null when neither.
 */
function requestIdOf(head: string, tail: string): Id {
  if (!/"method"\s*:/.test(head)) return null;
  const ID = /"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,200}")/;
  const p = head.search(/"params"\s*:/);
  const before = ID.exec(p === -1 ? head : head.slice(0, p));
  const after = new RegExp(`${ID.source}\\s*}\\s*$`).exec(tail);
  const raw = before?.[1] ?? after?.[1];
  return raw === undefined ? null : (JSON.parse(raw) as string | number);
}

/** The first zod issue as one line: where, and what was expected. */
function oneLine(issue: { path: PropertyKey[]; message: string } | undefined): string {
  if (!issue) return 'has invalid params';
  const where = issue.path.map(String).join('.');
  return `${where || 'params'}: ${issue.message}`.replace(/\s+/g, ' ').slice(0, 200);
}

/** The id of a message-like object when it is a valid JSON-RPC id, else null. */
function idOf(value: unknown): Id {
  if (typeof value !== 'object' || value === null) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}
