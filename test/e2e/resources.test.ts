/**
 * Resources and the onboard_repository prompt through a real SDK client: read-only views of
 * `.copilot-state/`, and nothing outside it however the URI is spelled.
 */
import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { harnessesPerTest, tempWorkspace, type Harness } from '../helpers/harness.js';
import { fillChain } from '../helpers/traces.js';
import { exampleWorkspace } from '../helpers/workspace.js';
import { TraceStore, traceDir } from '../../server/src/io/traces.js';

const harnesses = harnessesPerTest();

async function start(root = tempWorkspace('co-res-'), caps: Record<string, unknown> = {}): Promise<Harness> {
  return harnesses.open({ root, caps });
}

async function read(hh: Harness, uri: string): Promise<{ text: string; mimeType: string | undefined; uri: string }> {
  const r = await hh.client.readResource({ uri });
  expect(r.contents).toHaveLength(1);
  const c = r.contents[0]! as { text: string; mimeType?: string; uri: string };
  return { text: c.text, mimeType: c.mimeType, uri: c.uri };
}

async function addSampling(root: string, n: number): Promise<string[]> {
  const s = new TraceStore(root, 'sampling');
  const files: string[] = [];
  for (let i = 0; i < n; i++) {
    const rec = {
      format: 'copilot-onboarding/sampling-trace@1' as const,
      timestamp: new Date(Date.UTC(2026, 10, 22, 12, 0, 0, i)).toISOString(),
      intent: 'analyze',
      client: { name: 'test', version: '1' },
      request: null,
      response: null,
      outcome: 'unsupported' as const,
      fallback_used: true,
      duration_ms: 0,
      error: null,
    };
    files.push((await s.append(rec, 'analyze')).file);
  }
  return files;
}

describe('resources', () => {
  it('lists the fixed resources, the trace template and one resource per trace', async () => {
    const root = tempWorkspace('co-res-');
    const eFiles = await fillChain(root, 2);
    const sFiles = await addSampling(root, 1);
    const hh = await start(root);
    const { resources } = await hh.client.listResources();
    const uris = resources.map((r) => r.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        'copilot-onboarding://status',
        'copilot-onboarding://plan/current',
        'copilot-onboarding://traces',
        ...eFiles.map((f) => `copilot-onboarding://traces/elicitation/${f}`),
        `copilot-onboarding://traces/sampling/${sFiles[0]}`,
      ]),
    );
    // Every resource is JSON but the plan view, the one MCP App (test/e2e/plan-view.test.ts).
    expect(resources.filter((r) => r.mimeType !== 'application/json').map((r) => [r.uri, r.mimeType])).toEqual([['ui://copilot-onboarding/plan-view', 'text/html;profile=mcp-app']]);
    const { resourceTemplates } = await hh.client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['copilot-onboarding://traces/{chain}/{file}']);
  });

  it('status is the workspace status as JSON', async () => {
    const hh = await start();
    const r = await read(hh, 'copilot-onboarding://status');
    expect(r.mimeType).toBe('application/json');
    expect(JSON.parse(r.text)).toMatchObject({ workspace: hh.root, status: 'new', currentPlan: null, rollbackAvailable: false });
    // Reading creates nothing.
    await expect(fsp.access(path.join(hh.root, '.copilot-state'))).rejects.toThrow();
  });

  it('plan/current: a clear error without a plan, the stored plan after onboarding_propose', async () => {
    const hh = await start(exampleWorkspace());
    await expect(hh.client.readResource({ uri: 'copilot-onboarding://plan/current' })).rejects.toThrow(/no current plan.*onboarding_propose/i);
    const p = await hh.call('onboarding_propose', { narrate: false });
    expect(p.isError).toBeFalsy();
    const planId = (p.structuredContent as { planId: string }).planId;
    const plan = JSON.parse((await read(hh, 'copilot-onboarding://plan/current')).text) as { planId: string; sha256: string; operations: unknown[] };
    expect(plan.planId).toBe(planId);
    const stored = JSON.parse(await fsp.readFile(path.join(hh.root, '.copilot-state', 'plans', `${planId}.json`), 'utf8')) as unknown;
    expect(plan).toEqual(stored);
  });

  it('traces lists both chains: seq, file, action/intent, outcome, timestamp', async () => {
    const root = tempWorkspace('co-res-');
    const eFiles = await fillChain(root, 3);
    const sFiles = await addSampling(root, 2);
    const hh = await start(root);
    const t = JSON.parse((await read(hh, 'copilot-onboarding://traces')).text) as {
      elicitation: Array<Record<string, unknown>>;
      sampling: Array<Record<string, unknown>>;
    };
    expect(t.elicitation.map((x) => x.file)).toEqual(eFiles);
    expect(t.elicitation[0]).toMatchObject({ seq: 1, action: 'approve', channel: 'mcp', outcome: 'approved', timestamp: '2026-11-22T10:00:00.000Z', uri: `copilot-onboarding://traces/elicitation/${eFiles[0]}` });
    expect(t.sampling.map((x) => [x.seq, x.intent, x.outcome])).toEqual([
      [1, 'analyze', 'unsupported'],
      [2, 'analyze', 'unsupported'],
    ]);
    expect(t.sampling.map((x) => x.file)).toEqual(sFiles);
  });

  it('one trace is returned byte for byte', async () => {
    const root = tempWorkspace('co-res-');
    const [first] = await fillChain(root, 1);
    const [sampled] = await addSampling(root, 1);
    const hh = await start(root);
    const r = await read(hh, `copilot-onboarding://traces/elicitation/${first}`);
    expect(r.text).toBe(await fsp.readFile(path.join(traceDir(root, 'elicitation'), first!), 'utf8'));
    const s = await read(hh, `copilot-onboarding://traces/sampling/${encodeURIComponent(sampled!)}`);
    expect(JSON.parse(s.text)).toMatchObject({ seq: 1, intent: 'analyze' });
  });

  describe('never reads outside .copilot-state/', () => {
    const refused = [
      'copilot-onboarding://traces/elicitation/..%2F..%2Fonboarding.json',
      'copilot-onboarding://traces/elicitation/..%2Fonboarding.json',
      'copilot-onboarding://traces/elicitation/%2E%2E%2F%2E%2E%2Fsecret.json',
      'copilot-onboarding://traces/elicitation/..%5C..%5Csecret.json',
      'copilot-onboarding://traces/elicitation/%2Fetc%2Fpasswd',
      'copilot-onboarding://traces/elicitation/.head.json',
      'copilot-onboarding://traces/elicitation/..',
      'copilot-onboarding://traces/elicitation/x.json%00.txt',
      'copilot-onboarding://traces/elicitation/%E0%A4%A',
      'copilot-onboarding://traces/plans/x.json',
      'copilot-onboarding://traces/..%2Fplans/x.json',
      'copilot-onboarding://traces/elicitation/../../onboarding.json',
      'copilot-onboarding://traces/elicitation/a/b.json',
    ];
    it.each(refused)('%s is refused', async (uri) => {
      const root = tempWorkspace('co-res-');
      await fillChain(root, 1);
      await fsp.writeFile(path.join(root, '.copilot-state', 'onboarding.json'), '{"SECRET":"state"}');
      await fsp.writeFile(path.join(root, 'secret.json'), '{"SECRET":"workspace"}');
      const hh = await start(root);
      const outcome = await hh.client.readResource({ uri }).then(
        (r) => JSON.stringify(r),
        (e: Error) => `error: ${e.message}`,
      );
      expect(outcome).toMatch(/^error: /);
      expect(outcome).not.toContain('SECRET');
    });

    it('a trace file that is a symlink out of the state folder is refused', async () => {
      const root = tempWorkspace('co-res-');
      await fillChain(root, 1);
      await fsp.writeFile(path.join(root, 'secret.json'), '{"SECRET":"workspace"}');
      await fsp.symlink(path.join(root, 'secret.json'), path.join(traceDir(root, 'elicitation'), 'link.json'));
      const hh = await start(root);
      await expect(hh.client.readResource({ uri: 'copilot-onboarding://traces/elicitation/link.json' })).rejects.toThrow(/outside \.copilot-state/);
    });

    it('a FIFO named like a trace answers with an error, and the server keeps serving', async () => {
      const root = tempWorkspace('co-res-');
      const [first] = await fillChain(root, 1);
      const dir = traceDir(root, 'elicitation');
      for (let i = 0; i < 5; i++) execFileSync('mkfifo', [path.join(dir, `2026-01-01T00-00-0${i}-000Z-approve.json`)]);
      const hh = await start(root);
      for (let i = 0; i < 5; i++) {
        const uri = `copilot-onboarding://traces/elicitation/2026-01-01T00-00-0${i}-000Z-approve.json`;
        await expect(hh.client.readResource({ uri }, { timeout: 5_000 })).rejects.toThrow(/not a regular file/);
      }
      // Still serving: a normal trace, the status resource and a tool call all answer.
      const r = await hh.client.readResource({ uri: `copilot-onboarding://traces/elicitation/${first}` }, { timeout: 5_000 });
      expect(JSON.parse((r.contents[0] as { text: string }).text)).toMatchObject({ seq: 1 });
      const st = await hh.call('onboarding_status', {}, { timeout: 5_000 });
      expect(st.isError, JSON.stringify(st.content)).toBeFalsy();
    });

    it('an unknown trace is "not found"', async () => {
      const hh = await start();
      await expect(hh.client.readResource({ uri: 'copilot-onboarding://traces/elicitation/2026-01-01T00-00-00-000Z-approve.json' })).rejects.toThrow(/No trace/);
    });
  });
});

describe('the onboard_repository prompt', () => {
  it('is listed and walks through the whole flow with the two rules', async () => {
    const hh = await start(tempWorkspace('co-res-'), { elicitation: {} });
    const { prompts } = await hh.client.listPrompts();
    const p = prompts.find((x) => x.name === 'onboard_repository');
    expect(p).toBeDefined();
    expect(p!.arguments?.map((a) => [a.name, a.required])).toEqual([['focus', false]]);
    const got = await hh.client.getPrompt({ name: 'onboard_repository', arguments: {} });
    expect(got.messages).toHaveLength(1);
    const text = (got.messages[0]!.content as { text: string }).text;
    const order = ['onboarding_status', 'onboarding_analyze', 'question_ask', 'overrides', 'onboarding_approve', 'onboarding_migrate', 'onboarding_rollback', 'copilot-onboarding rollback'];
    let at = -1;
    for (const word of order) {
      const i = text.indexOf(word, at + 1);
      expect(i, `"${word}" after position ${at}`).toBeGreaterThan(at);
      at = i;
    }
    expect(text).toMatch(/No tool argument can approve/);
    expect(text).toMatch(/do NOT retry the same call blindly/);
    expect(text).toContain('copilot-onboarding://plan/current');
    // The plan's leftover suggestions go to the human, and the answers come back as overrides.
    expect(text).toMatch(/`leftover`[^\n]*with `question_ask`[^\n]*`overrides`, so low-confidence scopes are decided by a person, not guessed/);
  });

  it('tells a client without elicitation that the gates will refuse, and passes the focus on', async () => {
    const hh = await start(tempWorkspace('co-res-'), {});
    const got = await hh.client.getPrompt({ name: 'onboard_repository', arguments: { focus: 'keep the testing rules repo-wide' } });
    const text = (got.messages[0]!.content as { text: string }).text;
    expect(text).toMatch(/test-client did not declare MCP elicitation/);
    expect(text).toMatch(/`question_ask` is not available/);
    expect(text).toContain('keep the testing rules repo-wide');
  });
});
