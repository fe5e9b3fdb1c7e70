/**
 * A host for MCP Apps in a test, built from the extension's own libraries
 * (`@modelcontextprotocol/ext-apps` 2.0.4, a pinned development dependency): `AppBridge` is the
 * host side, `App` the view side, joined by an in-process transport pair. The bridge does what
 * SEP-1865 asks of a host: it forwards an app's `tools/call` to the server (through our SDK
 * client) only when the tool, as the server lists it, includes "app" in `_meta.ui.visibility`
 * (default: model and app); otherwise it refuses the call. The App SDK's own bridge forwards
 * every call unchecked, so the check is written here, where a real host has it.
 */
import { App } from '@modelcontextprotocol/ext-apps';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitParams } from './harness.js';

type Message = Parameters<NonNullable<LinkedTransport['onmessage']>>[0];

/** One end of an in-process pair: what one end sends, the other receives (asynchronously). */
class LinkedTransport {
  other!: LinkedTransport;
  onmessage?: (message: never) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  async start(): Promise<void> {}
  async send(message: unknown): Promise<void> {
    const to = this.other;
    queueMicrotask(() => to.onmessage?.(structuredClone(message) as Message));
  }
  async close(): Promise<void> {
    this.onclose?.();
  }
}

export interface AppHost {
  /** The view's side: calls go through the bridge as an app's would. */
  app: App;
  /** Every tools/call the bridge received from the app, with what it did. */
  calls: Array<{ name: string; forwarded: boolean }>;
  close(): Promise<void>;
}

export const visibilityOf = (t: { _meta?: Record<string, unknown> }): string[] =>
  ((t._meta?.ui as { visibility?: string[] } | undefined)?.visibility ?? ['model', 'app']);

/** The host's rule for an app's tools/call: forward it only when the listed tool includes "app" in its visibility. */
export function appCallForwarder(client: Client, calls: AppHost['calls'] = []) {
  return async (params: { name: string; arguments?: Record<string, unknown> }): Promise<CallToolResult> => {
    const { tools } = await client.listTools();
    const tool = tools.find((t) => t.name === params.name);
    const forwarded = !!tool && visibilityOf(tool).includes('app');
    calls.push({ name: params.name, forwarded });
    if (!forwarded) throw new Error(`${params.name} is not callable by apps (visibility ${JSON.stringify(tool ? visibilityOf(tool) : null)})`);
    return (await client.callTool({ name: params.name, arguments: params.arguments })) as CallToolResult;
  };
}

/** A person who answers yes to every form: true for a boolean, the first choice, a number 1, otherwise "yes". */
export function yesToEveryForm(p: ElicitParams): ElicitResult {
  const props = ((p as { requestedSchema?: { properties?: Record<string, { type?: string; enum?: string[] }> } }).requestedSchema?.properties ?? {}) as Record<string, { type?: string; enum?: string[] }>;
  return { action: 'accept', content: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v.type === 'boolean' ? true : (v.enum?.[0] ?? (v.type === 'number' || v.type === 'integer' ? 1 : 'yes'))])) };
}

export async function hostApp(client: Client): Promise<AppHost> {
  const calls: AppHost['calls'] = [];
  const bridge = new AppBridge(null, { name: 'test-host', version: '1' }, { serverTools: {} });
  const forward = appCallForwarder(client, calls);
  bridge.oncalltool = async (params) => (await forward(params)) as never;
  const hostEnd = new LinkedTransport();
  const appEnd = new LinkedTransport();
  hostEnd.other = appEnd;
  appEnd.other = hostEnd;
  const initialized = new Promise<void>((resolve) => (bridge.oninitialized = () => resolve()));
  await bridge.connect(hostEnd as never);
  const app = new App({ name: 'plan-view-probe', version: '1' }, {}, { autoResize: false });
  await app.connect(appEnd as never);
  await initialized;
  return {
    app,
    calls,
    close: async () => {
      await app.close();
      await bridge.close();
    },
  };
}
