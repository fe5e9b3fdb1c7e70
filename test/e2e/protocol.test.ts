/**
 * JSON-RPC hygiene of the built binary over raw stdio (no SDK client): what the SDK's reader
 * would drop in silence gets its JSON-RPC error and a stderr line, requests before initialize
 * are refused, an oversized line is refused without freezing the server, and nothing reaches
 * stdout before the initialize answer. `npm test` builds first.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../helpers/harness.js';
import { put } from '../helpers/files.js';

const BIN = path.resolve(import.meta.dirname, '../../dist/index.js');
const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } };

interface Msg {
  id?: string | number | null;
  method?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** A raw line client: every stdout line parsed, in order; wait for a predicate on them. */
class Raw {
  readonly lines: string[] = [];
  stderr = '';
  private buf = '';
  private waiters: Array<() => void> = [];
  constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.on('data', (d: Buffer) => {
      this.buf += d.toString();
      let nl;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        this.lines.push(this.buf.slice(0, nl));
        this.buf = this.buf.slice(nl + 1);
      }
      for (const w of this.waiters) w();
    });
    child.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
  }
  get messages(): Msg[] {
    return this.lines.map((l) => JSON.parse(l) as Msg);
  }
  send(raw: string): void {
    this.child.stdin.write(raw.endsWith('\n') ? raw : `${raw}\n`);
  }
  /** Asserts stderr matches `re`, waiting for it first (stdout and stderr are two pipes: a line on one may come before the other's). */
  async expectStderr(re: RegExp, ms = 15_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!re.test(this.stderr) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(this.stderr).toMatch(re);
  }
  async waitFor(pred: (m: Msg) => boolean, what: string, ms = 15_000): Promise<Msg> {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = this.messages.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stdout: ${this.lines.join('\n')}; stderr: ${this.stderr}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, 50);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
      this.waiters = [];
    }
  }
  async close(): Promise<void> {
    this.child.stdin.end();
    if (this.child.exitCode === null) await new Promise((r) => this.child.on('exit', r));
  }
}

let root: string;
let raw: Raw | undefined;
beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build (npm test does it)`);
});
afterEach(async () => {
  await raw?.close();
  raw = undefined;
  if (root) removeWorkspace(root);
});

function start(env: Record<string, string> = {}): Raw {
  root = tempWorkspace('co-proto-');
  raw = new Raw(spawn(process.execPath, [BIN, 'serve', '--workspace', root], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } }));
  return raw;
}

async function initialize(r: Raw): Promise<void> {
  r.send(JSON.stringify(INIT));
  await r.waitFor((m) => m.id === 1 && m.result !== undefined, 'the initialize answer');
  r.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
}

/** A small monolith in the workspace, a client that can show forms, a plan proposed, and onboarding_approve called (id 41): its form comes next. */
async function approveCalled(r: Raw): Promise<void> {
  put(root, '.github/copilot-instructions.md', '# Rules\n\nBe kind.\n\n## TypeScript\n\nUse strict mode in every `.ts` file.\n');
  put(root, 'src/index.ts', 'export {};\n');
  r.send(JSON.stringify({ ...INIT, params: { ...INIT.params, capabilities: { elicitation: { form: {} } } } }));
  await r.waitFor((m) => m.id === 1 && m.result !== undefined, 'the initialize answer');
  r.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  r.send(JSON.stringify({ jsonrpc: '2.0', id: 40, method: 'tools/call', params: { name: 'onboarding_propose', arguments: { narrate: false } } }));
  await r.waitFor((m) => m.id === 40, 'the propose answer');
  r.send(JSON.stringify({ jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'onboarding_approve', arguments: {} } }));
}

describe('JSON-RPC over stdio (raw client)', () => {
  it('the first line on stdout is the initialize answer; no log notification comes before it', async () => {
    const r = start();
    // Wait for the start-up log (stderr, after the transport is connected), not for a fixed time.
    await new Promise<void>((res, rej) => {
      const check = () => /serving on stdio/.test(r.stderr) && res();
      r.child.stderr.on('data', check);
      r.child.on('exit', () => rej(new Error(`serve exited before its start-up line: ${r.stderr}`)));
      check();
    });
    expect(r.lines).toEqual([]);
    await initialize(r);
    expect(r.messages[0]).toMatchObject({ id: 1, result: { serverInfo: { name: 'copilot-onboarding' } } });
    await r.expectStderr(/serving on stdio/);
  });

  it('malformed JSON gets -32700 with id null and a stderr line; the session goes on', async () => {
    const r = start();
    await initialize(r);
    r.send('{"jsonrpc":"2.0","id":5,"method":"ping"');
    const err = await r.waitFor((m) => m.error?.code === -32700, 'a parse error');
    expect(err.id).toBeNull();
    await r.expectStderr(/refused a JSON-RPC message: Parse error/);
    r.send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'ping' }));
    expect(await r.waitFor((m) => m.id === 6, 'the ping answer')).toMatchObject({ result: {} });
  });

  it('an invalid request gets -32600 with its id and a stderr line', async () => {
    const r = start();
    await initialize(r);
    r.send('{"jsonrpc":"2.0","id":8}');
    const err = await r.waitFor((m) => m.id === 8, 'the answer to id 8');
    expect(err.error?.code).toBe(-32600);
    r.send('{"jsonrpc":"1.0","id":9,"method":"ping"}');
    expect((await r.waitFor((m) => m.id === 9, 'the answer to id 9')).error?.code).toBe(-32600);
    await r.expectStderr(/refused a JSON-RPC message: Invalid Request.*"id":8/);
  });

  it('a batch gets an error answer (MCP has no batches) and none of its requests is executed', async () => {
    const r = start();
    await initialize(r);
    r.send(JSON.stringify([{ jsonrpc: '2.0', id: 10, method: 'ping' }, { jsonrpc: '2.0', id: 11, method: 'tools/list' }]));
    const err = await r.waitFor((m) => m.error?.code === -32600, 'a batch refusal');
    expect(err.id).toBeNull();
    expect(err.error?.message).toMatch(/batch/i);
    r.send(JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'ping' }));
    await r.waitFor((m) => m.id === 12, 'the ping answer');
    expect(r.messages.some((m) => m.id === 10 || m.id === 11)).toBe(false);
    await r.expectStderr(/batches are not supported/);
  });

  it('requests other than initialize and ping before initialize are refused, not executed', async () => {
    const r = start();
    r.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    r.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'onboarding_status', arguments: {} } }));
    r.send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' }));
    const list = await r.waitFor((m) => m.id === 2, 'the tools/list refusal');
    const call = await r.waitFor((m) => m.id === 3, 'the tools/call refusal');
    expect(list.error?.code).toBe(-32600);
    expect(list.error?.message).toMatch(/before initialize/);
    expect(call.error?.code).toBe(-32600);
    expect(call.result).toBeUndefined();
    expect(await r.waitFor((m) => m.id === 4, 'the ping answer')).toMatchObject({ result: {} });
    await initialize(r);
    r.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }));
    expect((await r.waitFor((m) => m.id === 5, 'tools/list after initialize')).result?.tools).toBeInstanceOf(Array);
  });

  it('a line over the configured bound gets -32600 without being parsed, and the server answers at once after it', async () => {
    const r = start({ COPILOT_ONBOARDING_MAX_MESSAGE_BYTES: String(64 * 1024) });
    await initialize(r);
    // 8 MiB of one JSON string in 64 KiB writes: the SDK's reader would re-copy its buffer for each.
    const big = JSON.stringify({ jsonrpc: '2.0', id: 20, method: 'ping', params: { pad: 'x'.repeat(8 * 1024 * 1024) } });
    const t0 = Date.now();
    for (let i = 0; i < big.length; i += 64 * 1024) r.child.stdin.write(big.slice(i, i + 64 * 1024));
    r.send('');
    r.send(JSON.stringify({ jsonrpc: '2.0', id: 21, method: 'ping' }));
    const err = await r.waitFor((m) => m.error !== undefined && /longer than the limit/.test(m.error.message), 'the size refusal');
    expect(err.error?.code).toBe(-32600);
    expect(err.id, 'answered with its own id: the id is in the first bytes kept').toBe(20);
    expect(await r.waitFor((m) => m.id === 21, 'the ping after it')).toMatchObject({ result: {} });
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(r.messages.filter((m) => m.id === 20), 'never executed: its one answer is the error').toEqual([err]);
    await r.expectStderr(/longer than the limit of 65536 bytes/);
  });

  it('an oversized request whose id comes last is answered with that id; one without an id gets id null', async () => {
    const r = start({ COPILOT_ONBOARDING_MAX_MESSAGE_BYTES: String(64 * 1024) });
    await initialize(r);
    const big = `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"onboarding_status","arguments":{"pad":"${'x'.repeat(200 * 1024)}"}},"id":"last-77"}`;
    for (let i = 0; i < big.length; i += 64 * 1024) r.child.stdin.write(big.slice(i, i + 64 * 1024));
    r.send('');
    const err = await r.waitFor((m) => m.id === 'last-77', 'the refusal with its id');
    expect(err.error?.code).toBe(-32600);
    expect(err.error?.message).toMatch(/longer than the limit/);
    r.send(`{"jsonrpc":"2.0","method":"tools/call","params":{"id":5,"pad":"${'x'.repeat(200 * 1024)}"}}`);
    const anon = await r.waitFor((m) => m.id === null && /longer than the limit/.test(m.error?.message ?? ''), 'the refusal without an id');
    expect(anon.error?.code).toBe(-32600);
    expect(r.messages.some((m) => m.id === 5), 'an id inside params is not the request id').toBe(false);
  });

  it('initialize with invalid params: -32602 with a one-line message, and the session stays uninitialized', async () => {
    const r = start();
    r.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {} } }));
    const err = await r.waitFor((m) => m.id === 1, 'the initialize refusal');
    expect(err.error?.code).toBe(-32602);
    expect(err.error?.message).toMatch(/^Invalid params: initialize params\.clientInfo: /);
    expect(err.error?.message).not.toMatch(/\n/);
    expect(r.lines[0]!.length).toBeLessThan(400);
    r.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
    expect((await r.waitFor((m) => m.id === 2, 'tools/list after the bad initialize')).error?.message).toMatch(/before initialize/);
    r.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: 7, capabilities: {}, clientInfo: { name: 'x', version: '1' } } }));
    expect((await r.waitFor((m) => m.id === 3, 'the second refusal')).error).toMatchObject({ code: -32602, message: expect.stringMatching(/protocolVersion/) });
    await initialize(r);
    r.send(JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }));
    expect((await r.waitFor((m) => m.id === 5, 'tools/list after initialize')).result?.tools).toBeInstanceOf(Array);
  });

  it('no server request before the initialize answer: initialized sent early or in the same write as initialize', async () => {
    const r = start();
    // notifications/initialized before initialize is dropped (it would start the session's pings and logs).
    r.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    // initialize and initialized in one write: the server's first request (a ping) must come after the answer.
    r.child.stdin.write(`${JSON.stringify(INIT)}\n${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    await r.waitFor((m) => m.method === 'ping', "the server's ping");
    expect(r.messages[0]).toMatchObject({ id: 1, result: { serverInfo: { name: 'copilot-onboarding' } } });
    expect(r.messages.filter((m) => m.method === 'ping')).toHaveLength(1);
    await r.expectStderr(/dropped notifications\/initialized sent before initialize/);
  });

  it('an oversized form answer fails its form at once: the gate refuses and traces the outcome error', async () => {
    const r = start({ COPILOT_ONBOARDING_MAX_MESSAGE_BYTES: String(64 * 1024) });
    await approveCalled(r);
    const form = await r.waitFor((m) => m.method === 'elicitation/create', 'the approve form');
    // A 5 MB comment in the answer, in 64 KiB writes; the id comes last, as the SDK writes responses.
    const big = JSON.stringify({ result: { action: 'accept', content: { approved: true, comment: 'x'.repeat(5 * 1024 * 1024) } }, jsonrpc: '2.0', id: form.id });
    const t0 = Date.now();
    for (let i = 0; i < big.length; i += 64 * 1024) r.child.stdin.write(big.slice(i, i + 64 * 1024));
    r.send('');
    const res = (await r.waitFor((m) => m.id === 41, 'the approve answer')).result as { isError?: boolean; structuredContent?: { approved?: boolean; outcome?: string } };
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(res.isError).toBe(true);
    expect(res.structuredContent).toMatchObject({ approved: false, outcome: 'error' });
    const dir = path.join(root, '.copilot-state', 'elicitation-traces');
    const traces = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('.')).map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { action: string; outcome: string; error: string | null });
    expect(traces).toEqual([expect.objectContaining({ action: 'approve', outcome: 'error', error: expect.stringMatching(/longer than the limit/) })]);
    await r.expectStderr(/refused an oversized JSON-RPC response/);
  });

  it('a client that disconnects (stdin ends) while a form is open leaves a trace: cancelled, disconnect; nothing changed', async () => {
    const r = start();
    await approveCalled(r);
    await r.waitFor((m) => m.method === 'elicitation/create', 'the approve form');
    await r.close(); // stdin ends; the process exits
    raw = undefined;
    const dir = path.join(root, '.copilot-state', 'elicitation-traces');
    const traces = readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('.')).map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as { action: string; outcome: string; error: string | null });
    expect(traces).toEqual([expect.objectContaining({ action: 'approve', outcome: 'cancelled', error: expect.stringMatching(/^disconnect: the client disconnected while the form was open/) })]);
    const st = JSON.parse(readFileSync(path.join(root, '.copilot-state', 'onboarding.json'), 'utf8')) as { approval?: unknown };
    expect(JSON.stringify(st)).not.toMatch(/"approved"\s*:\s*true/);
    expect(existsSync(path.join(root, '.github', 'instructions'))).toBe(false);
  });

  it('a gate refusal from a thrown error carries structuredContent with an error field', async () => {
    const r = start();
    await initialize(r);
    r.send(JSON.stringify({ jsonrpc: '2.0', id: 30, method: 'tools/call', params: { name: 'onboarding_rollback', arguments: {} } }));
    const res = (await r.waitFor((m) => m.id === 30, 'the rollback answer')).result as { isError?: boolean; structuredContent?: { error?: { code: string }; rolledBack?: boolean } };
    expect(res.isError).toBe(true);
    expect(res.structuredContent?.rolledBack).toBe(false);
    expect(typeof res.structuredContent?.error?.code).toBe('string');
  });
});
