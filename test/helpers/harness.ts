/**
 * A real SDK Client connected to the real server over InMemoryTransport, with scripted
 * elicitation and sampling answers. Records every form and prompt the "human" was shown.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterEach } from 'vitest';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type ClientCapabilities,
  type CreateMessageResult,
  type ElicitRequest,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_CONFIG, type Config } from '../../server/src/runtime/config.js';
import { createLogger } from '../../server/src/runtime/log.js';
import { createServer } from '../../server/src/mcp/server.js';

export type ElicitParams = ElicitRequest['params'];
/** A scripted answer: a result, a function of the request, or 'hang' (never answers). */
export type ElicitScript = ElicitResult | ((p: ElicitParams, signal: AbortSignal) => ElicitResult | Promise<ElicitResult>) | 'hang';
/** What a person answers who approves, confirms a migration, or confirms a rollback. */
export const YES_APPROVE: ElicitResult = { action: 'accept', content: { approved: true } };
export const YES_MIGRATE: ElicitResult = { action: 'accept', content: { confirmed: true, understood_risks: true } };
export const YES_ROLLBACK: ElicitResult = { action: 'accept', content: { confirmed: true } };
export type SampleScript = CreateMessageResult | ((p: unknown) => CreateMessageResult | Promise<CreateMessageResult>) | { error: string };

export interface Harness {
  client: Client;
  root: string;
  shown: ElicitParams[];
  prompts: unknown[];
  listChanged: number;
  /** Aborted signals seen by the client's elicitation handler (cancellation reached the client). */
  aborted: number;
  /** Resolves with the `count`-th form once the client has been shown it (default: the first). */
  waitForElicitation(count?: number): Promise<ElicitParams>;
  /** Resolves once `count` tools/list_changed notifications have arrived. */
  waitForListChanged(count?: number): Promise<void>;
  /** Resolves once `count` pending forms have been aborted on the client side. */
  waitForAbort(count?: number): Promise<void>;
  call(name: string, args?: Record<string, unknown>, opts?: { signal?: AbortSignal; timeout?: number; onprogress?: (p: unknown) => void }): Promise<CallToolResult>;
  close(): Promise<void>;
}

export function tempWorkspace(prefix = 'co-ws-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeWorkspace(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export async function connect(opts: {
  root?: string;
  caps?: ClientCapabilities;
  elicit?: ElicitScript[];
  sample?: SampleScript[];
  config?: Partial<Config>;
  clientName?: string;
} = {}): Promise<Harness> {
  const root = opts.root ?? tempWorkspace();
  const config: Config = { ...DEFAULT_CONFIG, ...opts.config };
  const { mcp } = createServer({ workspace: root, fallbackRoot: root, config, log: createLogger({ stderr: false }), version: '0.0.0-test' });
  const client = new Client({ name: opts.clientName ?? 'test-client', version: '1.2.3' }, { capabilities: opts.caps ?? {} });
  const elicitQueue = [...(opts.elicit ?? [])];
  const sampleQueue = [...(opts.sample ?? [])];
  // Waiters for the events above, re-checked whenever one happens.
  const waiters = new Set<() => boolean>();
  const changed = (): void => {
    for (const w of [...waiters]) if (w()) waiters.delete(w);
  };
  const until = <T>(value: () => T | undefined): Promise<T> =>
    new Promise<T>((resolve) => {
      const check = (): boolean => {
        const v = value();
        if (v === undefined) return false;
        resolve(v);
        return true;
      };
      if (!check()) waiters.add(check);
    });
  const h: Harness = {
    client,
    root,
    shown: [],
    prompts: [],
    listChanged: 0,
    aborted: 0,
    waitForElicitation: (count = 1) => until(() => h.shown[count - 1]),
    waitForListChanged: (count = 1) => until(() => h.listChanged >= count || undefined).then(() => undefined),
    waitForAbort: (count = 1) => until(() => h.aborted >= count || undefined).then(() => undefined),
    call: async (name, args = {}, o = {}) =>
      (await client.callTool({ name, arguments: args }, undefined, {
        timeout: o.timeout ?? 30_000,
        ...(o.signal ? { signal: o.signal } : {}),
        ...(o.onprogress ? { onprogress: o.onprogress, resetTimeoutOnProgress: true } : {}),
      })) as CallToolResult,
    close: async () => {
      await client.close();
      await mcp.close();
    },
  };
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    h.listChanged++;
    changed();
  });
  if (opts.caps?.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
      h.shown.push(req.params);
      changed();
      const next = elicitQueue.shift();
      if (next === undefined) throw new Error('test harness: no scripted elicitation answer left');
      if (next === 'hang') {
        return new Promise<ElicitResult>((_, reject) => {
          extra.signal.addEventListener('abort', () => {
            h.aborted++;
            changed();
            reject(new Error('aborted'));
          });
        });
      }
      return typeof next === 'function' ? next(req.params, extra.signal) : next;
    });
  }
  if (opts.caps?.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      h.prompts.push(req.params);
      const next = sampleQueue.shift();
      if (next === undefined) throw new Error('test harness: no scripted sampling answer left');
      if (typeof next === 'object' && 'error' in next) throw new Error(String(next.error));
      return typeof next === 'function' ? next(req.params) : next;
    });
  }
  const [c, s] = InMemoryTransport.createLinkedPair();
  await mcp.connect(s);
  await client.connect(c);
  // A client that can show forms is told that question_ask appeared (oninitialized enables it).
  const el = opts.caps?.elicitation;
  if (el && (Object.keys(el).length === 0 || 'form' in el)) await h.waitForListChanged(1);
  // Listing tools makes the SDK client validate every structuredContent (errors included)
  // against the tool's outputSchema, as strict clients such as the MCP Inspector do.
  await client.listTools();
  return h;
}

/**
 * For a test file whose tests open harnesses: `open` connects one to `opts.root`; after each test
 * every harness opened is closed (once, even if the test closed it itself; errors ignored) and
 * its workspace removed. Call it once, at the top of the file.
 */
export function harnessesPerTest(): { open(opts: Parameters<typeof connect>[0] & { root: string }): Promise<Harness> } {
  const harnesses: Harness[] = [];
  const roots: string[] = [];
  afterEach(async () => {
    for (const h of harnesses.splice(0)) await h.close().catch(() => undefined);
    for (const r of roots.splice(0)) removeWorkspace(r);
  });
  return {
    async open(opts) {
      roots.push(opts.root);
      const h = await connect(opts);
      const close = h.close;
      let closing: Promise<void> | undefined;
      h.close = () => (closing ??= close());
      harnesses.push(h);
      return h;
    },
  };
}

export function textOf(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
