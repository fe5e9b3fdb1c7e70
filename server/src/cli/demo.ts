/**
 * `copilot-onboarding demo`: the whole flow on a bundled example repository, through a real
 * MCP client talking to this server over stdio. On a TTY the person answers each form;
 * with --yes, or without a TTY, the demo answers "yes" and says so.
 */
import path from 'node:path';
import readline from 'node:readline/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, type CallToolResult, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { copyTree, listFolder, makeTempFolder, readTextFile, removeTree, treeDigest } from '../io/files.js';
import { verifyChain } from '../io/traces.js';
import { rel, STATE_DIR, stateDir, traceDir, traceDirName } from '../io/layout.js';
import { PACKAGE_ROOT, VERSION } from '../io/package.js';

export interface DemoIo {
  stdout: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

export interface DemoOptions {
  yes: boolean;
  keep: boolean;
  /** Copy the resulting .copilot-state/ here at the end (used to produce .copilot-state.example/). */
  saveState?: string | undefined;
  /** Use this example folder instead of the bundled one. */
  example?: string | undefined;
}

const BUNDLED_EXAMPLE = path.join(PACKAGE_ROOT, 'examples/orders-service');
const SERVER_ENTRY = path.join(PACKAGE_ROOT, 'dist/index.js');

export async function runDemo(io: DemoIo, opts: DemoOptions): Promise<number> {
  const say = (s = '') => io.stdout.write(s + '\n');
  const step = (n: number, title: string) => say(`\n━━ ${n}. ${title} ${'━'.repeat(Math.max(0, 60 - title.length))}`);
  const auto = opts.yes || !io.isTTY;
  const rl = auto ? null : readline.createInterface({ input: io.stdin, output: io.stdout });

  const ws = await makeTempFolder('copilot-onboarding-demo-');
  const example = opts.example ? path.resolve(opts.example) : BUNDLED_EXAMPLE;
  await copyTree(example, ws);
  const before = await treeDigest(ws, STATE_DIR);

  say(`copilot-onboarding ${VERSION} demo`);
  say(`Example repository copied to ${ws} (${before.size} files).`);
  say(auto ? `Answering every form with "yes" (${opts.yes ? '--yes' : 'no TTY'}).` : 'You will be asked to answer each form, as a human would in an MCP client.');

  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER_ENTRY, 'serve', '--workspace', ws],
    env: { ...io.env, COPILOT_ONBOARDING_WORKSPACE: ws } as Record<string, string>,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'copilot-onboarding-demo', version: VERSION }, { capabilities: { elicitation: {} } });
  let declined = false;
  client.setRequestHandler(ElicitRequestSchema, async (req): Promise<ElicitResult> => {
    const p = req.params as { message: string; requestedSchema?: { properties?: Record<string, { type?: string; title?: string }>; required?: string[] } };
    say('\n┌─ The server asks (elicitation form) ─────────────────────────────');
    for (const line of p.message.split('\n')) say(`│ ${line}`);
    say('└──────────────────────────────────────────────────────────────────');
    const content: Record<string, boolean> = {};
    for (const name of p.requestedSchema?.required ?? []) {
      const field = p.requestedSchema?.properties?.[name];
      if (field?.type !== 'boolean') continue;
      if (auto) {
        say(`  [x] ${field.title ?? name}   (answered yes automatically)`);
        content[name] = true;
      } else {
        const a = (await rl!.question(`  ${field.title ?? name}? [y/N] `)).trim().toLowerCase();
        content[name] = a === 'y' || a === 'yes';
      }
    }
    if (Object.values(content).some((v) => !v)) {
      declined = true;
      return { action: 'decline' };
    }
    return { action: 'accept', content };
  });

  const call = async (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 24 * 3600 * 1000 })) as CallToolResult;
  const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
  const sc = <T>(r: CallToolResult) => r.structuredContent as T;

  let code = 0;
  try {
    await client.connect(transport);

    step(1, 'Analyze');
    const an = await call('onboarding_analyze');
    say(text(an));

    step(2, 'Propose (deterministic plan; nothing changes)');
    const pr = await call('onboarding_propose');
    if (pr.isError) throw new Error(text(pr));
    say(text(pr));

    // A gate that refused or was declined ends the demo (exit 1) with `stop`.
    const gate = async (n: number, title: string, tool: string, stop: () => string): Promise<CallToolResult | null> => {
      step(n, title);
      const r = await call(tool);
      say(`\n${text(r)}`);
      if (!r.isError) return r;
      say(stop());
      return null;
    };
    if (!(await gate(3, 'Approve (the human decides through a form)', 'onboarding_approve', () => (declined ? '\nYou declined: nothing was changed. The demo stops here.' : '')))) return 1;
    const mg = await gate(4, 'Migrate (backup, crash-safe apply, lossless proof on disk)', 'onboarding_migrate', () => '\nNothing was changed. The demo stops here.');
    if (!mg) return 1;
    const migration = sc<{ written: Array<{ path: string; op: string }> }>(mg);

    step(5, 'Verify');
    for (const w of migration.written.filter((x) => x.op === 'create').slice(0, 2)) {
      const body = await readTextFile(path.join(ws, w.path));
      say(`${w.path}:`);
      for (const line of body.split('\n').slice(0, 6)) say(`    ${line}`);
      say('    …');
    }
    const chain = await verifyChain(ws, 'elicitation');
    const traces = (await listFolder(traceDir(ws, 'elicitation'))).filter((f) => f.endsWith('.json') && !f.startsWith('.'));
    say(`Elicitation traces (${traces.length}), chain ${chain.ok ? 'verifies' : 'BROKEN'}:`);
    for (const t of traces.sort()) say(`    ${rel(traceDirName('elicitation'), t)}`);

    if (!(await gate(6, 'Roll back (restore byte for byte)', 'onboarding_rollback', () => '\nRollback was not confirmed: the migrated files stay in place.'))) return 1;
    const after = await treeDigest(ws, STATE_DIR);
    const same = before.size === after.size && [...before].every(([k, v]) => after.get(k) === v);
    say(`\nByte-identical restore: ${same ? 'yes' : 'NO'} (${after.size} files compared by SHA-256 against the copy made before step 1).`);
    if (!same) code = 1;
    const final = await verifyChain(ws, 'elicitation');
    say(`Trace chain after the whole flow: ${final.ok ? `verifies (${final.count} traces)` : 'BROKEN'}.`);
  } finally {
    rl?.close();
    await client.close().catch(() => undefined);
    if (opts.saveState) {
      await removeTree(opts.saveState);
      await copyTree(stateDir(ws), opts.saveState);
      say(`State folder copied to ${opts.saveState}.`);
    }
    if (opts.keep) say(`\nThe workspace is kept at ${ws}.`);
    else await removeTree(ws);
  }
  return code;
}
