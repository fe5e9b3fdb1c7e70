/**
 * A third-party client in the suite: the official MCP Inspector 2.12.0 (devDependency), talking to
 * the built binary (dist/index.js) over real stdio. Nothing here uses our own SDK client.
 *
 * - `mcpdo` (ships in the inspector package) declares form elicitation. From a non-TTY it returns
 *   at once with an `elicitationPending` payload and parks the tool call in its daemon; the test
 *   answers like a human would with `elicitation/respond <id> field:=value` or `--decline`.
 * - `inspector --cli` declares no elicitation: the gates must refuse, naming the client.
 *
 * HOME and MCP_INSPECTOR_SECRET_STORE=file point at a scratch dir (no keychain here, and a
 * per-run daemon that afterAll stops). See docs/clients.md, "Third-party client tests".
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, promises as fsp, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeWorkspace, tempWorkspace } from '../helpers/harness.js';
import { digest, exampleWorkspace, readTraces } from '../helpers/workspace.js';
import { verifyChain } from '../../server/src/io/traces.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(REPO, 'dist/index.js');
const INSPECTOR = path.join(REPO, 'node_modules/@modelcontextprotocol/inspector');
const MCPDO = path.join(INSPECTOR, 'clients/mcpdo/build/mcp-bin.js');
const LAUNCHER = path.join(INSPECTOR, 'clients/launcher/build/index.js');
const CLIENT = 'inspector-cli'; // the clientInfo.name both mcpdo and --cli send (2.12.0)

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (both clients print one JSON document with --format json), or undefined. */
  json: any;
}

/** Run `node <args>` in its own process group; on timeout kill the whole group and fail. */
function run(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 30_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
      reject(new Error(`timed out after ${timeoutMs} ms: node ${args.join(' ')}\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      let json: unknown;
      try {
        json = stdout.trim() ? JSON.parse(stdout) : undefined;
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/** Scratch environment for the inspector: its own HOME (daemon socket, catalog, secrets file). */
function inspectorEnv(home: string): NodeJS.ProcessEnv {
  mkdirSync(home, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, MCP_INSPECTOR_SECRET_STORE: 'file', MCP_INSPECTOR_DAEMON_DIR: path.join(home, '.mcp-inspector'), NO_COLOR: '1' };
  for (const k of ['MCP_INSPECTOR_DAEMON_TOKEN', 'MCP_STORAGE_DIR', 'MCP_CATALOG_PATH', 'MCP_ALLOW_DEFAULT_CONNECTION', 'MCP_CLIENT_CONFIG_PATH']) delete env[k];
  return env;
}

/** Kill (by pid) any process still running with our unique workspace path on its command line. */
function killStrays(marker: string): void {
  if (!existsSync('/proc')) return;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    if (Number(pid) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmd.includes(marker)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      /* gone or not ours */
    }
  }
}

/** The daemon writes its pid to <daemon dir>/mcpdod.lock (removed when it stops). */
function daemonPidOf(env: NodeJS.ProcessEnv): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path.join(env.MCP_INSPECTOR_DAEMON_DIR!, 'mcpdod.lock'), 'utf8'), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `key:=<JSON>` pairs: mcpdo JSON-parses the value, so strings stay strings ("true" too). */
const pairs = (o: Record<string, unknown>) => Object.entries(o).map(([k, v]) => `${k}:=${JSON.stringify(v)}`);
const textOf = (r: { content?: Array<{ type: string; text?: string }> } | undefined) => (r?.content ?? []).map((c) => c.text ?? '').join('\n');

beforeAll(() => {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run npm run build (npm test does it)`);
  if (!existsSync(MCPDO) || !existsSync(LAUNCHER)) throw new Error(`${INSPECTOR} is incomplete: run npm ci (it is a devDependency)`);
});

describe('mcpdo (MCP Inspector 2.12.0) with form elicitation, against the built binary', () => {
  const CONN = 'co';
  let scratch: string;
  let root: string;
  let env: NodeJS.ProcessEnv;
  let daemonPid: number | undefined;
  let disconnected = false;

  const mcpdo = (args: string[], timeoutMs?: number) => run([MCPDO, '--format', 'json', ...args], env, timeoutMs);
  const call = (tool: string, args: Record<string, unknown> = {}) => mcpdo([`@${CONN}`, 'tools/call', tool, ...pairs(args)]);
  const respond = (id: string, answer: Record<string, unknown> | '--decline' | '--cancel') =>
    mcpdo([`@${CONN}`, 'elicitation/respond', id, ...(typeof answer === 'string' ? [answer] : pairs(answer))]);
  /** A tool call that must park on a form: returns the elicitationPending payload. */
  async function pending(tool: string, args: Record<string, unknown> = {}) {
    const r = await call(tool, args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json?.elicitationPending, r.stdout + r.stderr).toBeDefined();
    return r.json.elicitationPending as {
      elicitationId: string;
      mode: string;
      toolName: string;
      message: string;
      requestedSchema: { type: string; properties: Record<string, { type: string; default?: unknown; title?: string }>; required: string[] };
    };
  }

  beforeAll(async () => {
    scratch = tempWorkspace('co-insp-');
    root = exampleWorkspace();
    env = inspectorEnv(path.join(scratch, 'home'));
  });

  afterAll(async () => {
    if (!env) return;
    daemonPid ??= daemonPidOf(env);
    if (!disconnected) await mcpdo(['disconnect', CONN], 15_000).catch(() => undefined);
    // `daemon stop` ends the daemon and every connection (the server children exit on stdin EOF).
    if (daemonPid !== undefined && alive(daemonPid)) await mcpdo(['daemon', 'stop'], 15_000).catch(() => undefined);
    for (let i = 0; i < 40 && daemonPid !== undefined && alive(daemonPid); i++) await new Promise((r) => setTimeout(r, 50));
    if (daemonPid !== undefined && alive(daemonPid)) process.kill(daemonPid, 'SIGKILL');
    killStrays(root);
    removeWorkspace(root);
    removeWorkspace(scratch);
  });

  it('connects, lists question_ask, asks a question, then propose → approve (decline, then accept) → migrate → rollback', async () => {
    const original = await digest(root);

    // connect: mcpdo starts its daemon (scratch HOME) and keeps one stdio connection to our server.
    const c = await mcpdo(['connect', '--connection', CONN, '--elicit', 'form', '--', process.execPath, BIN, 'serve', '--workspace', root], 30_000);
    expect(c.code, c.stderr).toBe(0);
    expect(c.json).toMatchObject({ name: CONN });
    daemonPid = daemonPidOf(env);

    // tools/list: question_ask is listed for a client that declared elicitation.
    const tl = await mcpdo([`@${CONN}`, 'tools/list']);
    expect(tl.code, tl.stderr).toBe(0);
    const names = (tl.json.tools as Array<{ name: string }>).map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['onboarding_status', 'onboarding_analyze', 'onboarding_propose', 'onboarding_approve', 'onboarding_migrate', 'onboarding_rollback', 'question_ask', 'question_summary']),
    );

    // The server sees the Inspector as it is: elicitation yes, sampling no.
    const st = await call('onboarding_status');
    expect(st.code, st.stderr).toBe(0);
    expect(st.json.structuredContent).toMatchObject({ client: { name: CLIENT }, capabilities: { elicitation: true, sampling: false } });

    // question_ask, answered through elicitation/respond.
    const question = 'Which test runner do you want? # with: colon';
    const answer = 'Use vitest: "always"';
    const q = await pending('question_ask', { question });
    // Shown through the form renderer: the `#` is escaped, so CommonMark shows it literally.
    expect(q).toMatchObject({ mode: 'form', toolName: 'question_ask', message: 'Which test runner do you want? \\# with: colon' });
    expect(q.requestedSchema.properties.answer!.type).toBe('string');
    const qa = await respond(q.elicitationId, { answer });
    expect(qa.code, qa.stderr).toBe(0);
    expect(qa.json.structuredContent).toMatchObject({ answer });
    const savedTo = qa.json.structuredContent.saved_to as string;
    expect(readFileSync(path.join(root, savedTo), 'utf8')).toContain('Use vitest');

    // propose: no form, a plan.
    const p = await call('onboarding_propose', { narrate: false });
    expect(p.code, p.stderr).toBe(0);
    expect(p.json.elicitationPending).toBeUndefined();
    const plan = p.json.structuredContent as { planId: string; sha256: string; operations: unknown[] };
    expect(plan.operations.length).toBeGreaterThan(1);

    // approve, declined: what the human saw, and nothing changes.
    const a1 = await pending('onboarding_approve');
    expect(a1.toolName).toBe('onboarding_approve');
    expect(a1.message).toContain(plan.planId);
    expect(a1.message).toContain(plan.sha256.slice(0, 12));
    expect(a1.message).toMatch(/\d+ files? created/);
    expect(a1.message).toContain('.copilot-state/backups/');
    expect(a1.requestedSchema.properties.approved).toMatchObject({ type: 'boolean', default: false });
    expect(a1.requestedSchema.required).toEqual(['approved']);
    const d = await respond(a1.elicitationId, '--decline');
    expect(d.code).toBe(5); // mcpdo: tool result isError
    expect(d.json).toMatchObject({ isError: true, structuredContent: { approved: false, outcome: 'declined' } });
    expect(textOf(d.json)).toMatch(/not approved.*Nothing was changed/s);
    expect(await digest(root)).toEqual(original);

    // approve, accepted with the box ticked.
    const a2 = await pending('onboarding_approve');
    const ok = await respond(a2.elicitationId, { approved: true });
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.json.structuredContent).toMatchObject({ approved: true, planId: plan.planId, planSha256: plan.sha256, outcome: 'approved' });
    expect(await digest(root)).toEqual(original);

    // migrate: both booleans required, default false.
    const m = await pending('onboarding_migrate');
    expect(m.message).toContain(plan.planId);
    expect(m.requestedSchema.required.slice().sort()).toEqual(['confirmed', 'understood_risks']);
    for (const f of ['confirmed', 'understood_risks']) expect(m.requestedSchema.properties[f]).toMatchObject({ type: 'boolean', default: false });
    const mr = await respond(m.elicitationId, { confirmed: true, understood_risks: true });
    expect(mr.code, mr.stdout + mr.stderr).toBe(0);
    expect(mr.json.structuredContent).toMatchObject({ migrated: true, verified: true, planId: plan.planId });
    const migrated = await digest(root);
    expect(migrated).not.toEqual(original);
    const created = Object.keys(migrated).filter((f) => /^\.github\/instructions\/[^/]+\.instructions\.md$/.test(f));
    expect(created.length).toBeGreaterThan(0);
    const backup = mr.json.structuredContent.backup as { archive: string };
    await fsp.access(path.join(root, backup.archive));

    // rollback: every byte back.
    const r = await pending('onboarding_rollback');
    expect(r.requestedSchema.properties.confirmed).toMatchObject({ type: 'boolean', default: false });
    expect(r.requestedSchema.required).toEqual(['confirmed']);
    const rr = await respond(r.elicitationId, { confirmed: true });
    expect(rr.code, rr.stdout + rr.stderr).toBe(0);
    expect(rr.json.structuredContent).toMatchObject({ rolledBack: true });
    expect(await digest(root)).toEqual(original);
    expect(existsSync(path.join(root, '.github/instructions'))).toBe(false);

    // The traces: one per form, with the Inspector's identity, and an intact chain.
    const traces = await readTraces(root);
    expect(traces.map((t) => `${t.action}:${t.outcome}`)).toEqual(['question:answered', 'approve:declined', 'approve:approved', 'migrate:approved', 'rollback:approved']);
    for (const t of traces) expect(t).toMatchObject({ channel: 'mcp', client: { name: CLIENT, version: '2.12.0' } });
    expect(traces[0]).toMatchObject({ message: q.message, response: { action: 'accept', content: { answer } } });
    expect(traces[1]).toMatchObject({ response: { action: 'decline' }, message: a1.message, schema: a1.requestedSchema });
    expect(traces[2]).toMatchObject({ response: { action: 'accept', content: { approved: true } }, subject: { planId: plan.planId, planSha256: plan.sha256 } });
    expect(traces[3]).toMatchObject({ response: { action: 'accept', content: { confirmed: true, understood_risks: true } } });
    expect(await verifyChain(root, 'elicitation')).toMatchObject({ ok: true, count: 5 });

    const bye = await mcpdo(['disconnect', CONN]);
    expect(bye.code, bye.stderr).toBe(0);
    disconnected = true;
  }, 120_000);
});

describe('inspector --cli (MCP Inspector 2.12.0, no elicitation), against the built binary', () => {
  let scratch: string;
  let root: string;
  let env: NodeJS.ProcessEnv;

  /** One `inspector --cli` invocation: it spawns the server, runs one method and exits. */
  const cli = (method: string, extra: string[] = []) =>
    run([LAUNCHER, '--cli', '--method', method, ...extra, '--format', 'json', '--', process.execPath, BIN, 'serve', '--workspace', root], env, 30_000);

  beforeAll(() => {
    scratch = tempWorkspace('co-insp-cli-');
    root = exampleWorkspace();
    env = inspectorEnv(path.join(scratch, 'home'));
  });
  afterAll(() => {
    if (!root) return;
    killStrays(root);
    removeWorkspace(root);
    removeWorkspace(scratch);
  });

  it('hides question_ask, and the gates refuse naming the client, change nothing, and leave an "unsupported" trace', async () => {
    const original = await digest(root);

    const tl = await cli('tools/list');
    expect(tl.code, tl.stderr).toBe(0);
    const names = (tl.json.result.tools as Array<{ name: string }>).map((t) => t.name);
    expect(names).toContain('question_summary');
    expect(names).toContain('onboarding_approve');
    expect(names).not.toContain('question_ask');

    const p = await cli('tools/call', ['--tool-name', 'onboarding_propose', '--tool-args-json', '{"narrate":false}']);
    expect(p.code, p.stderr).toBe(0);
    const plan = p.json.result.structuredContent as { planId: string; sha256: string };
    expect(plan.planId).toBeTruthy();

    const a = await cli('tools/call', ['--tool-name', 'onboarding_approve']);
    expect(a.code, a.stdout + a.stderr).toBe(5); // "tool_is_error"
    expect(a.json.result.isError).toBe(true);
    expect(a.json.result.structuredContent).toMatchObject({ approved: false, outcome: 'unsupported', error: { code: 'ELICITATION_UNSUPPORTED' } });
    const text = textOf(a.json.result);
    expect(text).toContain(CLIENT);
    expect(text).toMatch(/needs a client that can show MCP elicitation forms/);
    expect(text).toMatch(/VS Code.*Copilot CLI.*Claude Code.*Cursor.*MCP Inspector/);
    expect(text).toMatch(/Nothing was changed/);
    expect(await digest(root)).toEqual(original);

    const traces = await readTraces(root);
    expect(traces).toHaveLength(1);
    expect(traces[0]).toMatchObject({
      action: 'approve',
      outcome: 'unsupported',
      channel: 'mcp',
      client: { name: CLIENT, version: '2.12.0' },
      code: 'ELICITATION_UNSUPPORTED',
      // Capability first: refused before the plan was even looked up, so only the arguments.
      subject: { planId: null },
    });
    expect(await verifyChain(root, 'elicitation')).toMatchObject({ ok: true, count: 1 });
  }, 90_000);

  // The Inspector (like the SDK's own Client once it has run tools/list) validates structuredContent
  // against the tool's outputSchema even when isError is true, as the spec allows ("Servers MUST
  // provide structured results that conform to this schema"). A refusal raised before the form
  // (here: migrate without approval, refused first for the missing capability) must therefore still
  // be a tool result the client accepts, not a client error.
  it('a refusal before any form (migrate without approval) is a valid tool result for the Inspector', async () => {
    const original = await digest(root);
    const p = await cli('tools/call', ['--tool-name', 'onboarding_propose', '--tool-args-json', '{"narrate":false}']);
    expect(p.code, p.stderr).toBe(0);
    const m = await cli('tools/call', ['--tool-name', 'onboarding_migrate']);
    expect(m.stderr, 'the Inspector rejected the refusal: its structuredContent does not match the outputSchema of onboarding_migrate').not.toMatch(
      /must have required property/,
    );
    expect(m.code, m.stdout + m.stderr).toBe(5);
    expect(m.json.result.isError).toBe(true);
    expect(textOf(m.json.result)).toMatch(/^ELICITATION_UNSUPPORTED: Migration needs/);
    expect(m.json.result.structuredContent).toMatchObject({ migrated: false, outcome: 'unsupported', error: { code: 'ELICITATION_UNSUPPORTED' } });
    expect(await digest(root)).toEqual(original);
  }, 90_000);
});
