/** Talks to the built binary (dist/index.js) over real stdio. `npm test` builds first. */
import { spawn } from 'node:child_process';
import { existsSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../helpers/harness.js';
import { verifyChain } from '../../server/src/io/traces.js';
import { PLAN_VIEW_URI } from '../../server/src/mcp/plan-view.js';
import { PLAN_VIEW_HTML } from '../../server/src/mcp/plan-view-html.js';

const BIN = path.resolve(import.meta.dirname, '../../dist/index.js');
let root: string;

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build (npm test does it)`);
});
afterEach(() => root && removeWorkspace(root));

describe('stdio server (built binary)', () => {
  it('writes nothing but JSON-RPC to stdout and exits promptly when stdin ends', async () => {
    root = tempWorkspace('co-stdio-');
    const child = spawn(process.execPath, [BIN, 'serve', '--workspace', root], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    // Resolves once the reply to the last request (id 3) is on stdout (listeners run in order).
    const replied = new Promise<void>((resolve) => child.stdout.on('data', () => /"id":3[,}]/.test(out) && resolve()));
    const send = (m: unknown) => child.stdin.write(JSON.stringify(m) + '\n');
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'question_summary', arguments: {} } });
    await replied;
    const started = Date.now();
    child.stdin.end();
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(Date.now() - started).toBeLessThan(1500);
    expect(code).toBe(0);
    const lines = out.split('\n').filter((l) => l.length > 0);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    for (const l of lines) expect(() => JSON.parse(l)).not.toThrow();
    const byId = new Map(lines.map((l) => JSON.parse(l) as { id?: number; result?: Record<string, unknown> }).filter((m) => m.id !== undefined).map((m) => [m.id, m]));
    expect((byId.get(1)!.result as { serverInfo: { name: string } }).serverInfo.name).toBe('copilot-onboarding');
    const tools = (byId.get(2)!.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(tools).toContain('question_summary');
    expect(tools).not.toContain('question_ask');
    expect(err).toMatch(/serving on stdio/);
  });

  it('asks a question through a real SDK client with elicitation and leaves a YAML file and a verifiable trace', async () => {
    root = tempWorkspace('co-stdio-');
    const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'serve'], env: { ...process.env, COPILOT_ONBOARDING_WORKSPACE: root } as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'stdio-test', version: '9.9' }, { capabilities: { elicitation: {} } });
    const shown: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      shown.push(req.params.message);
      return { action: 'accept', content: { answer: 'Use vitest: "always".' } };
    });
    const listChanged = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    await client.connect(transport);
    await listChanged;
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('question_ask');
    // The plan view's page is a chunk of its own in the bundle, loaded when the resource is read.
    const view = (await client.readResource({ uri: PLAN_VIEW_URI })).contents[0] as { text?: string };
    expect(view.text).toBe(PLAN_VIEW_HTML);
    const r = await client.callTool({ name: 'question_ask', arguments: { question: 'Which test runner?' } });
    expect(r.structuredContent).toMatchObject({ answer: 'Use vitest: "always".' });
    expect(shown).toEqual(['Which test runner?']);
    const started = Date.now();
    await client.close();
    expect(Date.now() - started).toBeLessThan(1500);
    const files = await fsp.readdir(path.join(root, '.copilot-state', 'questions'));
    expect(files).toHaveLength(1);
    const report = await verifyChain(root, 'elicitation');
    expect(report).toMatchObject({ ok: true, count: 1 });
  });
});
