/**
 * The plan view: an MCP App (SEP-1865, extension `io.modelcontextprotocol/ui`) that
 * `onboarding_propose` links through `_meta.ui.resourceUri`. Hosts that render Apps show it
 * inline with the propose result; others ignore the link and show the text as before.
 *
 * The view is one self-contained HTML page (inline CSS and JS, no network; mcp/plan-view-html.ts,
 * imported when the resource is read, so it costs the server's start nothing). It speaks the
 * App side of the postMessage bridge by hand (ui/initialize, ui/notifications/initialized,
 * ui/notifications/tool-result, host-context-changed, size-changed) and renders with
 * textContent only. It first renders the result's `structuredContent` (its diff bounded, since
 * the model reads that result too); where the host proxies tool calls (`serverTools`) it then
 * calls the one tool an app may call, `onboarding_plan_view` (read-only, app-only), for the
 * whole plan. It sends nothing into the chat. forApps lists that tool `["app"]` and every other
 * tool `["model"]`, so a host refuses every other tool to any app.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { z } from 'zod';

export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
export const PLAN_VIEW_URI = 'ui://copilot-onboarding/plan-view';
export const PLAN_VIEW_MIME = 'text/html;profile=mcp-app';

/** `_meta` of the tool whose result the view renders. */
export const PLAN_VIEW_TOOL_META = { ui: { resourceUri: PLAN_VIEW_URI } };
/**
 * A tool as tools/list shows it, callable by the model only: `_meta.ui.visibility: ['model']`,
 * so a host refuses the tool to any app (SEP-1865: "Host MUST reject tools/call requests from
 * apps for tools that don't include "app" in visibility"). Every tool gets it but the view's own
 * read-only data tool (forApps): every tool but the pure reads writes something (instruction files, approvals,
 * questions, plans, traces, recovery). A server cannot tell an app's call from the model's (the
 * host forwards both on one connection), so this declaration is where the rule lives; behind it,
 * no write happens without the person's answer to the server's own form, which an app cannot give.
 */
function modelOnly<T extends { _meta?: Record<string, unknown> }>(tool: T): T {
  return withVisibility(tool, ['model']);
}

/** The one tool an app may call: it reads one stored plan's view data and writes nothing (mcp/tools/plan-view-data.ts). */
export const PLAN_VIEW_DATA_TOOL = 'onboarding_plan_view';

/**
 * A tool as tools/list shows it to an Apps host: `onboarding_plan_view` app-only (`["app"]`, so
 * the host keeps it from the model), every other tool model-only (modelOnly).
 */
export function forApps<T extends { name: string; _meta?: Record<string, unknown> }>(tool: T): T {
  return tool.name === PLAN_VIEW_DATA_TOOL ? withVisibility(tool, ['app']) : modelOnly(tool);
}

function withVisibility<T extends { _meta?: Record<string, unknown> }>(tool: T, visibility: Array<'model' | 'app'>): T {
  const ui = (tool._meta?.ui ?? {}) as Record<string, unknown>;
  return { ...tool, _meta: { ...tool._meta, ui: { ...ui, visibility } } };
}

/** Whether the client declared the Apps extension (it then renders the plan view). */
export function clientRendersApps(server: Server): boolean {
  const ext = (server.getClientCapabilities() as { extensions?: Record<string, unknown> } | undefined)?.extensions?.[APPS_EXTENSION] as
    | { mimeTypes?: unknown }
    | undefined;
  return !!ext && (!Array.isArray(ext.mimeTypes) || ext.mimeTypes.includes(PLAN_VIEW_MIME));
}

/**
 * Built when called: output schemas are built on first use (mcp/tools/lazy-schemas.ts). `whole`:
 * the plan view's own data (onboarding_plan_view), else the bounded form in propose's result.
 */
export const planViewShape = (whole = false) =>
  z.object({
    files: z.array(
      z.object({
        path: z.string(),
        op: z.enum(['create', 'modify', 'delete']),
        size: z.number().int(),
        globs: z.array(z.object({ glob: z.string(), matches: z.number().int() })),
        sections: z.array(z.string()),
      }),
    ),
    repoWide: z.array(z.object({ title: z.string(), source: z.string() })),
    repoWideDiff: z
      .object({
        path: z.string(),
        op: z.enum(['create', 'modify', 'delete']),
        before: z.object({ lines: z.number().int(), chars: z.number().int() }),
        after: z.object({ lines: z.number().int(), chars: z.number().int() }),
        rows: z.array(z.object({ op: z.enum([' ', '-', '+', '…']), text: z.string(), to: z.string().nullable() })),
      })
      .nullable()
      .describe(
        whole
          ? 'The repository-wide file before -> after the plan, every line: " " stays, "-" moves out (to), "+" is generated; lines sanitized, none cut.'
          : 'The repository-wide file before -> after the plan: " " stays, "-" moves out (to), "+" is generated, "…" counts lines left out; lines sanitized and bounded.',
      ),
    filesTruncated: z.boolean(),
  });
export function registerPlanView(mcp: McpServer): void {
  mcp.registerResource(
    'plan-view',
    PLAN_VIEW_URI,
    { title: 'Plan view', description: 'MCP App: the whole plan of the last onboarding_propose (files, globs, what stays repository-wide). Read-only.', mimeType: PLAN_VIEW_MIME },
    // The page is read when the resource is read, not at start: its module is a chunk of its own.
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: PLAN_VIEW_MIME, text: (await import('./plan-view-html.js')).PLAN_VIEW_HTML, _meta: { ui: { prefersBorder: true } } }] }),
  );
}
