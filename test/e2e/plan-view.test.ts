/**
 * The MCP App plan view (SEP-1865), through the SDK client: propose links it, the resource is the
 * self-contained HTML with the App MIME type, the propose result carries what it shows (the
 * same hash as the stored plan, every file and glob, the repository-wide file's diff, bounded),
 * the view's own app-only data tool gives the whole plan (every row of a large plan's diff)
 * through a SEP-1865 host bridge with nothing written and refuses an unknown, forged or stale
 * plan, every other tool is model-only and an app's call to it is refused with nothing written,
 * and the approve form points to the view only for clients that declared the Apps extension.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { harnessesPerTest, textOf } from '../helpers/harness.js';
import { hostApp, visibilityOf, yesToEveryForm } from '../helpers/app-host.js';
import { treeDigest } from '../helpers/fixtures.js';
import { exampleWorkspace } from '../helpers/workspace.js';
import { LARGE_PACKAGES, LONG_LINE, largePlanMonolith, largePlanWorkspace } from '../helpers/large-plan.js';
import { loadPlan } from '../../server/src/io/plans.js';
import { canonicalJson } from '../../server/src/core/canonical.js';
import { planHash } from '../../server/src/core/plan.js';
import type { PlanBody } from '../../server/src/schemas/plan.js';
import { REPO_WIDE_PATH, splitApplyTo } from '../../server/src/core/copilot-format.js';
import { PLAN_VIEW_LINE } from '../../server/src/core/form-render.js';
import { MAX_ROWS, MOVED_SHOWN } from '../../server/src/core/repo-wide-diff.js';
import { APPS_EXTENSION, PLAN_VIEW_DATA_TOOL, PLAN_VIEW_MIME, PLAN_VIEW_URI } from '../../server/src/mcp/plan-view.js';
import { PLAN_VIEW_HTML } from '../../server/src/mcp/plan-view-html.js';
import type { PlanViewData } from '../../server/src/app/plan-view.js';

const harnesses = harnessesPerTest();
const APPS_CAPS = { elicitation: {}, extensions: { [APPS_EXTENSION]: { mimeTypes: [PLAN_VIEW_MIME] } } };
const uiOf = (t: Tool | undefined) => (t?._meta as { ui?: { resourceUri?: string; visibility?: string[] } } | undefined)?.ui;

describe('plan view (MCP Apps)', () => {
  it("propose links the view; every tool is model-only but the view's read-only data tool, app-only and listed only for Apps clients", async () => {
    const h = await harnesses.open({ root: exampleWorkspace(), caps: APPS_CAPS });
    const { tools } = await h.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(uiOf(byName.get('onboarding_propose'))).toEqual({ resourceUri: PLAN_VIEW_URI, visibility: ['model'] });
    for (const name of ['onboarding_approve', 'onboarding_migrate', 'onboarding_rollback', 'question_ask']) expect(byName.has(name), name).toBe(true);
    for (const t of tools) expect(uiOf(t)?.visibility, t.name).toEqual(t.name === PLAN_VIEW_DATA_TOOL ? ['app'] : ['model']);
    const data = byName.get(PLAN_VIEW_DATA_TOOL)!;
    expect(data.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });
    expect(Object.keys(data.inputSchema.properties ?? {})).toEqual(['planId']);
    // No other tool is linked to the view.
    for (const t of tools) if (t.name !== 'onboarding_propose') expect(uiOf(t)?.resourceUri, t.name).toBeUndefined();
    // A client without the Apps extension lists exactly what it listed before.
    const plain = await harnesses.open({ root: exampleWorkspace(), caps: { elicitation: {} } });
    expect((await plain.client.listTools()).tools.map((t) => t.name)).not.toContain(PLAN_VIEW_DATA_TOOL);
  });

  it('a tool call from an app (through the extension\'s AppBridge, as a host forwards it) is refused: no form, no file, no trace changes', async () => {
    // The worst case: a person who answers yes to every form the server shows.
    const root = exampleWorkspace();
    const h = await harnesses.open({ root, caps: APPS_CAPS, elicit: Array.from({ length: 20 }, () => yesToEveryForm) });
    // The model proposes and the person approves, so a migrate call would now write the files.
    expect((await h.call('onboarding_propose', { narrate: false })).isError).toBeFalsy();
    const approved = await h.call('onboarding_approve', {});
    expect(approved.structuredContent, textOf(approved)).toMatchObject({ approved: true });
    const shownBefore = h.shown.length;
    const files = await treeDigest(root);
    const state = await treeDigest(path.join(root, '.copilot-state'));
    const host = await hostApp(h.client);
    try {
      const writers = ['onboarding_approve', 'onboarding_migrate', 'onboarding_rollback', 'question_ask'];
      const args: Record<string, Record<string, unknown>> = { question_ask: { question: 'Which test runner?' } };
      for (const name of writers) {
        await expect(host.app.callServerTool({ name, arguments: args[name] ?? {} }), name).rejects.toThrow(/not callable by apps/);
      }
      expect(host.calls).toEqual(writers.map((name) => ({ name, forwarded: false })));
    } finally {
      await host.close();
    }
    expect(h.shown.length).toBe(shownBefore);
    expect(await treeDigest(root)).toEqual(files);
    expect(await treeDigest(path.join(root, '.copilot-state'))).toEqual(state);
    // The same bridge forwards what an app may call: the view's read-only data tool, nothing else.
    const { tools } = await h.client.listTools();
    expect(tools.filter((t) => visibilityOf(t).includes('app')).map((t) => t.name)).toEqual([PLAN_VIEW_DATA_TOOL]);
  });

  it("the view's own data through the extension's AppBridge: a large plan whole (every file, glob, section, every line of the diff); nothing written, no form", async () => {
    const root = largePlanWorkspace();
    const h = await harnesses.open({ root, caps: APPS_CAPS, elicit: Array.from({ length: 20 }, () => yesToEveryForm) });
    const r = await h.call('onboarding_propose', { narrate: false });
    expect(r.isError, textOf(r)).toBeFalsy();
    const sc = r.structuredContent as { planId: string; sha256: string; planView: PlanViewData };
    // What the model reads stays bounded: the diff is cut at MAX_ROWS rows, long runs counted.
    expect(sc.planView.repoWideDiff!.rows).toHaveLength(MAX_ROWS);
    expect(sc.planView.repoWideDiff!.rows.some((x) => x.op === '\u2026')).toBe(true);
    const files = await treeDigest(root);
    const state = await treeDigest(path.join(root, '.copilot-state'));
    const shown = h.shown.length;
    const host = await hostApp(h.client);
    let got;
    try {
      got = await host.app.callServerTool({ name: PLAN_VIEW_DATA_TOOL, arguments: { planId: sc.planId } });
      expect(host.calls).toEqual([{ name: PLAN_VIEW_DATA_TOOL, forwarded: true }]);
    } finally {
      await host.close();
    }
    expect(got.isError, JSON.stringify(got.content)).toBeFalsy();
    const whole = got.structuredContent as { planId: string; sha256: string; riskReasons: string[]; planView: PlanViewData };
    const plan = await loadPlan(root, sc.planId);
    expect(whole).toMatchObject({ planId: plan.planId, sha256: plan.sha256 });
    // Risk reasons whole; each is one short line (the leftover's sections are in `leftover`), so
    // propose's facts, which would cut a long one for the model, carry them whole too.
    expect(whole.riskReasons).toEqual(plan.riskReasons);
    expect(plan.riskReasons.some((x) => / large sections? there ha(?:s|ve) candidate scopes to ask about$/.test(x))).toBe(true);
    expect((sc as unknown as { riskReasons: string[] }).riskReasons).toEqual(plan.riskReasons);
    const v = whole.planView;
    // Every file, with its globs, sections and matches.
    expect(v.files.map((f) => f.path)).toEqual(plan.operations.map((o) => o.path));
    expect(v.files).toHaveLength(LARGE_PACKAGES + 1);
    expect(v.files).toEqual(sc.planView.files);
    for (let i = 0; i < LARGE_PACKAGES; i++) {
      const name = `pkg${String(i).padStart(2, '0')}`;
      const f = v.files.find((x) => x.sections.includes(`Package ${name}`))!;
      expect(f.globs.length, name).toBeGreaterThan(0);
      for (const g of f.globs) expect(g.matches, g.glob).toBe(2);
    }
    expect(v.repoWide.map((x) => x.title)).toEqual(plan.sections.filter((x) => x.applyTo === null).map((x) => x.title));
    // Every line of the file before, in order, none cut, none counted.
    const d = v.repoWideDiff!;
    const before = largePlanMonolith().split('\n').slice(0, -1);
    expect(d.before.lines).toBe(before.length);
    expect(d.rows.length).toBeGreaterThan(MAX_ROWS);
    expect(d.rows.filter((x) => x.op === '\u2026')).toEqual([]);
    expect(d.rows.filter((x) => x.op !== '+').map((x) => x.text)).toEqual(before);
    expect(d.rows.map((x) => x.text)).toContain(LONG_LINE);
    for (const f of v.files.slice(1)) expect(d.rows.filter((x) => x.op === '-' && x.to === f.path).length, f.path).toBeGreaterThan(MOVED_SHOWN + 1);
    // Read-only: no form, no file, no state, plan or trace written.
    expect(h.shown.length).toBe(shown);
    expect(await treeDigest(root)).toEqual(files);
    expect(await treeDigest(path.join(root, '.copilot-state'))).toEqual(state);
  });

  it("the view's data tool refuses a malformed, unknown, altered, forged or stale plan id with a clear error, writing nothing", async () => {
    const root = exampleWorkspace();
    const h = await harnesses.open({ root, caps: APPS_CAPS });
    const sc = (await h.call('onboarding_propose', { narrate: false })).structuredContent as { planId: string };
    const planFile = path.join(root, '.copilot-state/plans', `${sc.planId}.json`);
    const real = JSON.parse(readFileSync(planFile, 'utf8')) as PlanBody & { planId: string; sha256: string };
    const files = await treeDigest(root);
    const view = async (planId: string) => {
      const r = await h.call(PLAN_VIEW_DATA_TOOL, { planId });
      expect(r.isError, planId).toBe(true);
      expect(r.structuredContent).toBeUndefined();
      return textOf(r);
    };
    expect(await view('../../etc/passwd')).toMatch(/^INVALID_INPUT: "\.\.\/\.\.\/etc\/passwd" is not a plan id \(16 hex characters\)\. .*Use the planId returned by onboarding_propose\./);
    expect(await view('0123456789abcdef')).toMatch(/^PLAN_NOT_FOUND: Plan 0123456789abcdef does not exist/);
    // Altered in place: its content no longer matches its SHA-256.
    writeFileSync(planFile, JSON.stringify({ ...real, risk: 'low', riskReasons: ['forged'] }));
    expect(await view(sc.planId)).toMatch(/^PLAN_CORRUPT: /);
    writeFileSync(planFile, JSON.stringify(real));
    // Forged: sealed like a real plan (its id is its own hash), but not what this tool makes from these files.
    const { planId: _id, sha256: _sha, ...body } = real;
    const forgedBody = { ...body, sections: body.sections.map((x, i) => (i === 0 ? { ...x, title: 'Approve me <img src=x onerror=alert(1)>' } : x)) };
    const sha256 = planHash(forgedBody as PlanBody);
    writeFileSync(path.join(root, '.copilot-state/plans', `${sha256.slice(0, 16)}.json`), canonicalJson({ ...forgedBody, planId: sha256.slice(0, 16), sha256 }));
    const forged = await view(sha256.slice(0, 16));
    expect(forged).toMatch(/^PLAN_NOT_DERIVABLE: .*not what copilot-onboarding .* makes from these files/);
    expect(forged).not.toContain('Approve me');
    // Stale: the instructions changed since the plan was made.
    const repoWide = path.join(root, REPO_WIDE_PATH);
    writeFileSync(repoWide, `${readFileSync(repoWide, 'utf8')}\n- One more rule.\n`);
    expect(await view(sc.planId)).toMatch(/^PLAN_STALE: Stale plan: \.github\/copilot-instructions\.md changed since plan/);
    const now = await treeDigest(root);
    expect({ ...now, [REPO_WIDE_PATH]: files[REPO_WIDE_PATH] }).toEqual(files);
  });

  it("the view's data tool reads no plan through a symlink or a FIFO (a repository can ship them in .copilot-state/plans/): refused at once, nothing outside read", async () => {
    const root = exampleWorkspace();
    const h = await harnesses.open({ root, caps: APPS_CAPS });
    const sc = (await h.call('onboarding_propose', { narrate: false })).structuredContent as { planId: string };
    const plans = path.join(root, '.copilot-state/plans');
    const planFile = path.join(plans, `${sc.planId}.json`);
    // A valid plan of this very workspace, kept outside and linked in: still not read.
    const outside = mkdtempSync(path.join(os.tmpdir(), 'plan-outside-'));
    const copy = path.join(outside, 'plan.json');
    writeFileSync(copy, readFileSync(planFile));
    rmSync(planFile);
    symlinkSync(copy, planFile);
    const linked = await h.call(PLAN_VIEW_DATA_TOOL, { planId: sc.planId });
    expect(linked.isError).toBe(true);
    expect(textOf(linked)).toMatch(new RegExp(`^PLAN_CORRUPT: Plan ${sc.planId} is not a regular file in \\.copilot-state/plans/ \\(a symlink, folder or device\\); it was not read\\.`));
    // A secret outside, linked in under a plan id: its text never reaches the result.
    writeFileSync(path.join(outside, 'secret'), 'TOP-SECRET-TOKEN');
    symlinkSync(path.join(outside, 'secret'), path.join(plans, '0123456789abcdef.json'));
    const secret = await h.call(PLAN_VIEW_DATA_TOOL, { planId: '0123456789abcdef' });
    expect(textOf(secret)).toMatch(/^PLAN_CORRUPT: /);
    expect(JSON.stringify(secret)).not.toContain('TOP-SECRET');
    // A FIFO with no writer: answered at once, not waited on.
    execFileSync('mkfifo', [path.join(plans, 'fedcba9876543210.json')]);
    const fifo = await h.call(PLAN_VIEW_DATA_TOOL, { planId: 'fedcba9876543210' });
    expect(textOf(fifo)).toMatch(/^PLAN_CORRUPT: Plan fedcba9876543210 is not a regular file/);
    rmSync(outside, { recursive: true, force: true });
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
    // Read-only: the view sends no message into the chat, no link, no context update; its one
    // tool call names the read-only data tool (no tool name comes from the data it renders).
    expect(c.text).not.toMatch(/ui\/message|ui\/open-link|ui\/update-model-context|resources\/read|sampling/);
    expect(c.text.match(/tools\/call/g)).toHaveLength(1);
    expect(c.text).toContain(`method:"tools/call",params:{name:"${PLAN_VIEW_DATA_TOOL}",arguments:{planId:sc.planId}}`);
    expect(c.text.match(/name:/g)).toHaveLength(2); // the tool's and the view's own appInfo
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
    // The repository-wide file before -> after: lines that move name the file they move to; the file after is what stays.
    const d = sc.planView.repoWideDiff!;
    const repoOp = plan.operations.find((o) => o.path === REPO_WIDE_PATH)!;
    expect(d).toMatchObject({ path: REPO_WIDE_PATH, op: repoOp.op });
    expect(d.before.chars).toBe(readFileSync(path.join(root, REPO_WIDE_PATH), 'utf8').length);
    expect(d.after.chars).toBe(repoOp.content!.length);
    const moved = d.rows.filter((r) => r.op === '-');
    expect(moved.length).toBeGreaterThan(0);
    expect(new Set(moved.map((r) => r.to))).toEqual(new Set(plan.sections.filter((s) => s.applyTo !== null).map((s) => s.destination)));
    for (const r of d.rows.filter((x) => x.op === ' ')) expect(repoOp.content).toContain(r.text);
  });

  it('the diff of the repository-wide file is sanitized and bounded: a hostile line reads as escapes, a long one is cut', async () => {
    const root = exampleWorkspace();
    const file = path.join(root, REPO_WIDE_PATH);
    const md = readFileSync(file, 'utf8');
    const evil = `- Keep \u202Etxt.exe\u202C, \u001b]8;;https://x.example\u0007link\u001b]8;;\u0007 and <img src=x onerror=alert(1)>.`;
    // Into the TypeScript section, which moves: its lines are shown.
    const i = md.indexOf('\n', md.indexOf('## TypeScript'));
    writeFileSync(file, `${md.slice(0, i)}\n\n${evil}\n- ${'y'.repeat(3000)}${md.slice(i)}`);
    const h = await harnesses.open({ root });
    const r = await h.call('onboarding_propose', { narrate: false });
    expect(r.isError, textOf(r)).toBeFalsy();
    const rows = (r.structuredContent as { planView: PlanViewData }).planView.repoWideDiff!.rows;
    const texts = rows.map((x) => x.text).join('\n');
    expect(texts).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u202a-\u202e]/);
    expect(texts).toContain('\\u202Etxt.exe\\u202C, \\x1B]8;;https://x.example\\x07link');
    // Text, not markup: the view puts it in the page with textContent (the browser test shows it literally).
    expect(texts).toContain('<img src=x onerror=alert(1)>');
    expect(rows.find((x) => x.text.startsWith('- yyy'))!.text).toMatch(/^- y{198}… \(3,002 bytes\)$/);
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
