/**
 * The MCP App plan view (SEP-1865), through the SDK client: propose links it, the resource is the
 * self-contained HTML with the App MIME type, the propose result carries everything it shows (the
 * same hash as the stored plan, every file and glob), gate and write tools are model-only, and the
 * approve form points to the view only for clients that declared the Apps extension.
 */
import { describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { harnessesPerTest, textOf } from '../helpers/harness.js';
import { exampleWorkspace } from '../helpers/workspace.js';
import { loadPlan } from '../../server/src/io/plans.js';
import { splitApplyTo } from '../../server/src/core/copilot-format.js';
import { PLAN_VIEW_LINE } from '../../server/src/core/form-render.js';
import { APPS_EXTENSION, PLAN_VIEW_HTML, PLAN_VIEW_MIME, PLAN_VIEW_URI } from '../../server/src/mcp/plan-view.js';
import type { PlanViewData } from '../../server/src/app/plan-view.js';

const harnesses = harnessesPerTest();
const APPS_CAPS = { elicitation: {}, extensions: { [APPS_EXTENSION]: { mimeTypes: [PLAN_VIEW_MIME] } } };
const uiOf = (t: Tool | undefined) => (t?._meta as { ui?: { resourceUri?: string; visibility?: string[] } } | undefined)?.ui;

describe('plan view (MCP Apps)', () => {
  it('propose links the view; approve, migrate, rollback and question_ask are model-only', async () => {
    const h = await harnesses.open({ root: exampleWorkspace(), caps: APPS_CAPS });
    const { tools } = await h.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(uiOf(byName.get('onboarding_propose'))).toEqual({ resourceUri: PLAN_VIEW_URI });
    for (const name of ['onboarding_approve', 'onboarding_migrate', 'onboarding_rollback', 'question_ask']) {
      expect(uiOf(byName.get(name))?.visibility, name).toEqual(['model']);
    }
    // No other tool is linked to the view or hidden from the model.
    for (const t of tools) if (t.name !== 'onboarding_propose') expect(uiOf(t)?.resourceUri, t.name).toBeUndefined();
  });

  it('resources/read returns the self-contained HTML view with the App MIME type', async () => {
    const h = await harnesses.open({ root: exampleWorkspace() });
    const listed = (await h.client.listResources()).resources.find((r) => r.uri === PLAN_VIEW_URI);
    expect(listed?.mimeType).toBe(PLAN_VIEW_MIME);
    const read = await h.client.readResource({ uri: PLAN_VIEW_URI });
    expect(read.contents).toHaveLength(1);
    const c = read.contents[0] as { uri: string; mimeType: string; text: string };
    expect(c.uri).toBe(PLAN_VIEW_URI);
    expect(c.mimeType).toBe('text/html;profile=mcp-app');
    expect(c.text).toBe(PLAN_VIEW_HTML);
    expect(c.text.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(c.text.length).toBeLessThan(10_000);
    // No network: no URL, no external reference, no network API.
    expect(c.text).not.toMatch(/https?:|\/\/[a-z0-9]|\bsrc=|\bhref=|url\(|@import|fetch\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon/i);
    // Text only: user strings never reach the DOM as HTML.
    expect(c.text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser/);
    // Read-only: the view sends no tool call, no message into the chat, no link.
    expect(c.text).not.toMatch(/tools\/call|ui\/message|ui\/open-link|ui\/update-model-context|resources\/read/);
    expect(c.text).toContain('"ui/initialize"');
    expect(c.text).toContain('"ui/notifications/tool-result"');
  });

  it("propose's result carries what the view shows: the plan's hash, every file, glob and repository-wide section", async () => {
    const root = exampleWorkspace();
    const h = await harnesses.open({ root });
    const r = await h.call('onboarding_propose', { narrate: false });
    expect(r.isError, textOf(r)).toBeFalsy();
    const sc = r.structuredContent as { planId: string; sha256: string; planView: PlanViewData };
    const plan = await loadPlan(root, sc.planId);
    expect(sc.sha256).toBe(plan.sha256);
    expect(sc.planView.files.map((f) => f.path)).toEqual(plan.operations.map((o) => o.path));
    expect(sc.planView.files.map((f) => f.size)).toEqual(plan.operations.map((o) => o.size));
    const globs = [...new Set(plan.sections.flatMap((s) => (s.applyTo ? splitApplyTo(s.applyTo) : [])))].sort();
    expect(globs.length).toBeGreaterThan(0);
    expect([...new Set(sc.planView.files.flatMap((f) => f.globs.map((g) => g.glob)))].sort()).toEqual(globs);
    // The example's globs name files that exist.
    for (const f of sc.planView.files) for (const g of f.globs) expect(g.matches, g.glob).toBeGreaterThan(0);
    expect(sc.planView.repoWide.map((s) => s.title)).toEqual(plan.sections.filter((s) => s.applyTo === null).map((s) => s.title));
    expect(sc.planView.files.flatMap((f) => f.sections).length + sc.planView.repoWide.length).toBeGreaterThanOrEqual(plan.sections.length);
  });

  it('the approve form points to the view only for clients that render Apps, and stays within 4,000 characters', async () => {
    const forms: string[] = [];
    for (const caps of [APPS_CAPS, { elicitation: {} }]) {
      const h = await harnesses.open({ root: exampleWorkspace(), caps, elicit: [{ action: 'decline' }] });
      expect((await h.call('onboarding_propose', { narrate: false })).isError).toBeFalsy();
      await h.call('onboarding_approve', {});
      forms.push((h.shown[0] as { message: string }).message);
    }
    const [apps, plain] = forms as [string, string];
    expect(apps).toContain(PLAN_VIEW_LINE);
    expect(apps.length).toBeLessThanOrEqual(4000);
    expect(plain).not.toContain('plan view');
    // Otherwise the same text (plan ids differ only if the plans differ; both are of the same example).
    expect(apps.replace(`${PLAN_VIEW_LINE}\n\n`, '')).toBe(plain);
  });
});
