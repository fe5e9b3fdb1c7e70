/**
 * The plan view in headless Chromium (Debian's `chromium`; puppeteer-core drives it), hosted by the
 * extension's own host-side bridge (`AppBridge` of `@modelcontextprotocol/ext-apps` 2.0.4, pinned):
 * the view sends ui/initialize, gets a host context (theme and style variables) and capabilities,
 * says initialized, renders the tool-result notification carrying the real structuredContent of
 * onboarding_propose and, since this host proxies tool calls (`serverTools`), calls the read-only
 * app-only onboarding_plan_view for the whole plan, which the bridge forwards to the real server.
 * Checked: the handshake, every file and glob of the plan in the rendered text, the short hash the
 * approve form shows, no request from the view but that one call, the whole diff of the
 * repository-wide file as rendered (every row of a large plan; each moved line under the file it
 * moves to; hostile text shown literally, no element made from it), the bounded fallback where the
 * host proxies no tool call or the call fails, and light and dark screenshots of the view and of
 * its diff kept under test-artifacts/plan-view/ (gitignored). A test-only page calls every write
 * tool through the same bridge, which forwards an app's call only as a SEP-1865 host does:
 * refused, nothing written.
 * Skipped, with a message, where no Chromium binary is installed (`apt-get install -y chromium`).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import puppeteer, { type Browser } from 'puppeteer-core';
import { build } from 'esbuild';
import { connect, removeWorkspace, tempWorkspace, type Harness } from '../helpers/harness.js';
import { exampleWorkspace } from '../helpers/workspace.js';
import { monolithWorkspace, syntheticMonolith } from '../helpers/monolith.js';
import { LARGE_PACKAGES, LONG_LINE, largePlanWorkspace } from '../helpers/large-plan.js';
import { MAX_ROWS } from '../../server/src/core/repo-wide-diff.js';
import { PLAN_VIEW_HTML } from '../../server/src/mcp/plan-view-html.js';
import { APPS_EXTENSION, PLAN_VIEW_DATA_TOOL, PLAN_VIEW_MIME } from '../../server/src/mcp/plan-view.js';
import { appCallForwarder, yesToEveryForm } from '../helpers/app-host.js';
import { treeDigest } from '../helpers/fixtures.js';
import type { PlanViewData } from '../../server/src/app/plan-view.js';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p): p is string => !!p && existsSync(p));
const ARTIFACTS = path.resolve(import.meta.dirname, '../../test-artifacts/plan-view');
if (!CHROMIUM) console.warn('plan-view-browser: skipped, no Chromium binary (apt-get install -y chromium, or set CHROMIUM_PATH).');

interface Seen {
  fromView: Array<{ id?: unknown; method?: string; params?: Record<string, unknown> }>;
  text: string;
  hashLine: string;
  whole: string;
  paths: string[];
  diffHead: string;
  diff: string[];
  elements: number;
}

/**
 * The host page: an iframe with the view (opaque origin, scripts only) and the host side of the
 * bridge, the extension's own `AppBridge` over its `PostMessageTransport` (bundled for the browser
 * by esbuild, see `bridgeBundle`). `runHost(html, structuredContent, theme)` connects the bridge,
 * loads the page, sends the tool result once the view says initialized, and resolves with every
 * message the view sent. An app's tools/call goes to `hostCallTool` (a function of the test, see
 * `appCalls`), which applies the SEP-1865 host rule and forwards to the real server.
 * Browser code is kept in this page (the test program has no DOM types).
 */
const hostPage = (bundle: string) => `<!DOCTYPE html><html><body style="margin:0"><iframe id="v" sandbox="allow-scripts" style="width:900px;height:700px;border:0"></iframe>
<script>${bundle}</script>
<script>
async function runHost(html, sc, theme, caps) {
  var frame = document.getElementById('v');
  var fromView = [];
  window.addEventListener('message', function (ev) { if (ev.source === frame.contentWindow) fromView.push(ev.data); });
  var bridge = new ExtApps.AppBridge(null, { name: 'test-host', version: '1' }, caps || { serverTools: {} },
    { hostContext: { theme: theme, displayMode: 'inline', styles: { variables: { '--font-sans': 'DejaVu Sans, sans-serif' } } } });
  bridge.oncalltool = function (params) { return window.hostCallTool(params); };
  var initialized = new Promise(function (resolve) { bridge.oninitialized = resolve; });
  await bridge.connect(new ExtApps.PostMessageTransport(frame.contentWindow, frame.contentWindow));
  frame.srcdoc = html;
  var timer;
  await Promise.race([initialized, new Promise(function (_, reject) { timer = setTimeout(function () { reject(new Error('no handshake; the view sent ' + JSON.stringify(fromView))); }, 10000); })]);
  clearTimeout(timer);
  if (sc) await bridge.sendToolResult({ content: [], structuredContent: sc });
  await new Promise(function (resolve) { setTimeout(resolve, 300); });
  return fromView;
}
</script></body></html>`;

/** The extension's host side for the browser: AppBridge and PostMessageTransport as one script defining `ExtApps`. */
async function bridgeBundle(): Promise<string> {
  const r = await build({
    stdin: { contents: "export { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';", resolveDir: path.resolve(import.meta.dirname, '../..'), loader: 'js' },
    bundle: true,
    platform: 'browser',
    format: 'iife',
    globalName: 'ExtApps',
    write: false,
    logLevel: 'error',
  });
  return r.outputFiles[0]!.text.replace(/<\/script/gi, '<\\/script');
}

const READ_VIEW = `({ text: document.body.innerText, hashLine: document.getElementById('hash').textContent, whole: document.getElementById('whole').textContent,
  paths: [...document.querySelectorAll('[data-path]')].map((e) => e.getAttribute('data-path')),
  diffHead: document.getElementById('diff-h').hidden ? '' : document.getElementById('diff-h').innerText + '\\n' + document.getElementById('diff-s').innerText,
  diff: [...document.getElementById('diff').children].map((e) => e.innerText),
  elements: document.querySelectorAll('img,a,iframe,object,embed,form,input,button,script:not(:first-of-type)').length })`;

type CallTool = (params: { name: string; arguments?: Record<string, unknown> }) => Promise<unknown>;
const refuseAll: CallTool = async (params) => {
  throw new Error(`the plan view called ${params.name}`);
};

/** What the host offers the view: tool calls proxied (the view then loads the whole plan), or nothing. */
const PROXIES_TOOLS = { serverTools: {} };
const NO_PROXY = {};

async function hostView(browser: Browser, bundle: string, structuredContent: unknown, theme: 'light' | 'dark', shot: string, callTool: CallTool = refuseAll, caps: object = PROXIES_TOOLS): Promise<Seen> {
  const page = await browser.newPage();
  try {
    await page.setViewport({ width: 900, height: 700 });
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: theme }]);
    await page.exposeFunction('hostCallTool', callTool);
    await page.setContent(hostPage(bundle));
    const fromView = (await page.evaluate(`runHost(${JSON.stringify(PLAN_VIEW_HTML)}, ${JSON.stringify(structuredContent)}, ${JSON.stringify(theme)}, ${JSON.stringify(caps)})`)) as Seen['fromView'];
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    // The whole plan arrives after the tool-result (or the view says why it did not).
    await frame.waitForFunction(`!/^Loading/.test(document.getElementById('whole').textContent)`, { timeout: 60_000 });
    const rendered = (await frame.evaluate(READ_VIEW)) as Omit<Seen, 'fromView'>;
    mkdirSync(ARTIFACTS, { recursive: true });
    const el = await frame.$('main');
    await el!.screenshot({ path: path.join(ARTIFACTS, shot) as `${string}.png` });
    // The diff, whole: the page unrolled (no inner scroll) and the frame as tall as the page.
    await frame.evaluate(`document.querySelector('main').style.maxHeight = 'none'`);
    const height = Math.min(16_000, (await frame.evaluate('document.body.scrollHeight')) as number);
    await page.evaluate(`document.getElementById('v').style.height = '${height}px'`);
    await page.setViewport({ width: 900, height });
    const diff = await frame.$('#diff:not([hidden])');
    if (diff) await diff.screenshot({ path: path.join(ARTIFACTS, shot.replace(/\.png$/, '-diff.png')) as `${string}.png` });
    return { fromView, ...rendered };
  } finally {
    await page.close();
  }
}

/** The example with a hostile line in a section that moves (its lines are in the diff). */
async function hostileExample(): Promise<string> {
  const root = exampleWorkspace();
  const file = path.join(root, '.github/copilot-instructions.md');
  const md = readFileSync(file, 'utf8');
  const i = md.indexOf('\n', md.indexOf('## TypeScript'));
  writeFileSync(file, `${md.slice(0, i)}\n\n- Never <img src=x onerror="parent.postMessage({jsonrpc:'2.0',id:9,method:'tools/call',params:{name:'onboarding_approve'}},'*')"> \u202Eevil\u202C <a href="https://x.example">link</a>${md.slice(i)}`);
  return root;
}

const WRITERS = ['onboarding_approve', 'onboarding_migrate', 'onboarding_rollback', 'question_ask'];

/** A test-only view that, once initialized, calls every write tool through the host and shows each answer. */
const PROBE = `<!DOCTYPE html><html><body><pre id="out">{}</pre><script>
var names = ${JSON.stringify(WRITERS)}, results = {};
function post(m) { parent.postMessage(Object.assign({ jsonrpc: '2.0' }, m), '*'); }
window.addEventListener('message', function (ev) {
  var m = ev.data; if (!m || m.jsonrpc !== '2.0') return;
  if (m.id === 1 && !m.method) {
    post({ method: 'ui/notifications/initialized', params: {} });
    names.forEach(function (n, i) { post({ id: 10 + i, method: 'tools/call', params: { name: n, arguments: n === 'question_ask' ? { question: 'Which test runner?' } : {} } }); });
  } else if (typeof m.id === 'number' && m.id >= 10 && !m.method) {
    results[names[m.id - 10]] = m.error ? 'error: ' + m.error.message : 'result: ' + JSON.stringify(m.result).slice(0, 200);
    document.getElementById('out').textContent = JSON.stringify(results);
  }
});
post({ id: 1, method: 'ui/initialize', params: { protocolVersion: '2026-01-26', appInfo: { name: 'probe', version: '1' }, appCapabilities: {} } });
</script></body></html>`;

interface Proposed {
  planId: string;
  sha256: string;
  planView: PlanViewData;
  loads: { line: string } | null;
}

/** A connection from a client that renders Apps, and its propose result. */
async function propose(root: string): Promise<{ h: Harness; sc: Proposed }> {
  const h = await connect({ root, caps: { elicitation: {}, extensions: { [APPS_EXTENSION]: { mimeTypes: [PLAN_VIEW_MIME] } } } });
  const r = await h.call('onboarding_propose', { narrate: false });
  expect(r.isError).toBeFalsy();
  return { h, sc: r.structuredContent as unknown as Proposed };
}

/** The diff as the view shows it: each moved run under the file it goes to. */
function diffLines(v: PlanViewData): string[] {
  const rows = v.repoWideDiff!.rows;
  return rows.flatMap((r, i) => {
    const row = r.op === '\u2026' ? `\u2026 ${r.text}` : `${r.op} ${r.text}`;
    const prev = rows[i - 1];
    return r.op === '-' && r.to && !(prev?.op === '-' && prev.to === r.to) ? [`\u2192 ${r.to}`, row] : [row];
  });
}

/** The view showed `v` (files, globs, sections, the diff row for row) and no element came from the data. */
function expectShown(seen: Seen, v: PlanViewData): void {
  expect(seen.paths).toEqual(v.files.map((f) => f.path));
  for (const f of v.files) for (const g of f.globs) expect(seen.text, g.glob).toContain(g.glob);
  for (const s of v.repoWide) expect(seen.text).toContain(s.title.trim());
  const d = v.repoWideDiff!;
  expect(seen.diffHead).toContain(`${d.path} before \u2192 after`);
  expect(seen.diffHead).toContain(`${d.before.lines.toLocaleString('en')} \u2192 ${d.after.lines.toLocaleString('en')} lines`);
  expect(seen.diff.map((x) => x.trimEnd())).toEqual(diffLines(v).map((x) => x.trimEnd()));
  expect(seen.diff.some((x) => x.startsWith('- '))).toBe(true);
  expect(seen.elements).toBe(0);
}

describe.skipIf(!CHROMIUM)('plan view in headless Chromium', () => {
  let browser: Browser;
  let bundle: string;
  const roots: string[] = [];
  beforeAll(async () => {
    bundle = await bridgeBundle();
    browser = await puppeteer.launch({
      executablePath: CHROMIUM!,
      headless: true,
      userDataDir: tempWorkspace('co-chromium-'),
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    for (const r of roots) removeWorkspace(r);
  });

  it('an app calling approve, migrate, rollback or question_ask through the bridge is refused: no form, no file or trace changes', async () => {
    const root = exampleWorkspace();
    roots.push(root);
    const h = await connect({ root, caps: { elicitation: {}, extensions: { [APPS_EXTENSION]: { mimeTypes: [PLAN_VIEW_MIME] } } }, elicit: Array.from({ length: 20 }, () => yesToEveryForm) });
    try {
      // The model proposes and the person approves: a migrate call would now write the files.
      expect((await h.call('onboarding_propose', { narrate: false })).isError).toBeFalsy();
      expect((await h.call('onboarding_approve', {})).structuredContent).toMatchObject({ approved: true });
      const shown = h.shown.length;
      const files = await treeDigest(root);
      const state = await treeDigest(path.join(root, '.copilot-state'));
      const calls: Array<{ name: string; forwarded: boolean }> = [];
      const page = await browser.newPage();
      try {
        await page.exposeFunction('hostCallTool', appCallForwarder(h.client, calls));
        await page.setContent(hostPage(bundle));
        await page.evaluate(`runHost(${JSON.stringify(PROBE)}, null, 'light')`);
        const frame = page.frames().find((f) => f !== page.mainFrame())!;
        await frame.waitForFunction(`Object.keys(JSON.parse(document.getElementById('out').textContent)).length === ${WRITERS.length}`, { timeout: 30_000 });
        const results = JSON.parse((await frame.evaluate(`document.getElementById('out').textContent`)) as string) as Record<string, string>;
        for (const name of WRITERS) expect(results[name], name).toMatch(new RegExp(`^error: .*${name} is not callable by apps`));
      } finally {
        await page.close();
      }
      expect(calls).toEqual(WRITERS.map((name) => ({ name, forwarded: false })));
      expect(h.shown.length).toBe(shown);
      expect(await treeDigest(root)).toEqual(files);
      expect(await treeDigest(path.join(root, '.copilot-state'))).toEqual(state);
    } finally {
      await h.close();
    }
  }, 120_000);

  it.each([
    ['the bundled example', 'example', async () => exampleWorkspace()],
    ['a 100 KiB synthetic monolith', 'monolith-100k', async () => monolithWorkspace(await syntheticMonolith(100 * 1024))],
    ['the example with a hostile line (markup, a bidi override)', 'hostile', hostileExample],
    [`a large plan (${LARGE_PACKAGES + 1} files, a diff far over ${MAX_ROWS} rows, long moved runs, a long line)`, 'large', async () => largePlanWorkspace()],
  ])('%s: handshake, the whole plan through the read-only data tool (every file, glob and diff row), the form hash, nothing else asked; light and dark', async (_name, slug, make) => {
    const root = await make();
    roots.push(root);
    const { h, sc } = await propose(root);
    try {
      const whole = (await h.call(PLAN_VIEW_DATA_TOOL, { planId: sc.planId })).structuredContent as { riskReasons: string[]; planView: PlanViewData };
      expect(whole.planView.repoWideDiff!.rows.filter((r) => r.op === '\u2026')).toEqual([]);
      const files = await treeDigest(root);
      const state = await treeDigest(path.join(root, '.copilot-state'));
      for (const theme of ['light', 'dark'] as const) {
        const calls: Array<{ name: string; forwarded: boolean }> = [];
        const seen = await hostView(browser, bundle, sc, theme, `${slug}-${theme}.png`, appCallForwarder(h.client, calls));
        const methods = seen.fromView.map((m) => m.method);
        expect(methods.slice(0, 2)).toEqual(['ui/initialize', 'ui/notifications/initialized']);
        expect(seen.fromView[0]!.params).toMatchObject({ protocolVersion: '2026-01-26', appInfo: { name: expect.any(String) } });
        // One request besides the handshake: the read-only data tool, for this plan. No ui/message, no other tool.
        expect(seen.fromView.filter((m) => m.id !== undefined && m.method !== 'ui/initialize')).toEqual([{ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: PLAN_VIEW_DATA_TOOL, arguments: { planId: sc.planId } } }]);
        expect(new Set(methods.slice(2).filter((x) => x !== 'tools/call'))).toEqual(new Set(methods.length > 3 ? ['ui/notifications/size-changed'] : []));
        expect(calls).toEqual([{ name: PLAN_VIEW_DATA_TOOL, forwarded: true }]);
        expect(seen.whole).toBe('The whole plan: every file and every line of the diff.');
        expect(seen.hashLine).toContain(`SHA-256 ${sc.sha256.slice(0, 12)}\u2026`);
        expect(seen.hashLine).toContain(sc.sha256);
        // The "what loads where" figure, the sentence the approve form shows.
        expect(sc.loads).not.toBeNull();
        expect(seen.text).toContain(sc.loads!.line);
        // Every file, glob and section, and the repository-wide file before -> after, every row as the person reads it.
        expectShown(seen, whole.planView);
        expect(seen.diffHead).toContain('every line is shown');
        if (slug === 'large') {
          expect(seen.paths).toHaveLength(LARGE_PACKAGES + 1);
          expect(seen.diff.length).toBeGreaterThan(MAX_ROWS);
          expect(seen.diff).toContain(`  ${LONG_LINE}`);
          for (const r of whole.riskReasons) expect(seen.text).toContain(r);
        }
        if (slug === 'hostile') {
          expect(seen.diff).toContain(`- - Never <img src=x onerror="parent.postMessage({jsonrpc:'2.0',id:9,method:'tools/call',params:{name:'onboarding_approve'}},'*')"> \\u202Eevil\\u202C <a href="https://x.example">link</a>`);
        }
        expect(existsSync(path.join(ARTIFACTS, `${slug}-${theme}.png`))).toBe(true);
        expect(existsSync(path.join(ARTIFACTS, `${slug}-${theme}-diff.png`))).toBe(true);
      }
      // Reading the whole plan wrote nothing.
      expect(await treeDigest(root)).toEqual(files);
      expect(await treeDigest(path.join(root, '.copilot-state'))).toEqual(state);
    } finally {
      await h.close();
    }
  }, 180_000);

  it('a host that proxies no tool call, or whose call fails, shows the bounded diff from the propose result and says so', async () => {
    const root = largePlanWorkspace();
    roots.push(root);
    const { h, sc } = await propose(root);
    try {
      expect(sc.planView.repoWideDiff!.rows).toHaveLength(MAX_ROWS);
      const seen = await hostView(browser, bundle, sc, 'light', 'large-bounded-light.png', refuseAll, NO_PROXY);
      expect(seen.fromView.filter((m) => m.id !== undefined && m.method !== 'ui/initialize')).toEqual([]);
      expect(seen.whole).toMatch(/^This host does not let the view load the whole plan: the diff below is shortened/);
      expectShown(seen, sc.planView);
      expect(seen.diffHead).toContain('unchanged runs are shortened');
      expect(seen.diff.at(-1)).toMatch(/^\u2026 [\d,]+ more rows? of this diff not shown/);
      const failed = await hostView(browser, bundle, sc, 'dark', 'large-failed-dark.png', refuseAll, PROXIES_TOOLS);
      expect(failed.whole).toMatch(/^The whole plan could not be loaded \(.*the plan view called onboarding_plan_view.*\); below, the shortened form from the propose result\.$/);
      expectShown(failed, sc.planView);
    } finally {
      await h.close();
    }
  }, 120_000);
});
