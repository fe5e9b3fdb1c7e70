/**
 * Every gate call leaves a trace. A client without form elicitation is refused first, in every
 * state, with ELICITATION_UNSUPPORTED and one `unsupported` trace; every other refusal before a
 * form leaves one `refused` trace with its code. Nothing changes either way.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { YES_APPROVE, YES_MIGRATE, harnessesPerTest, textOf, type Harness } from '../helpers/harness.js';
import { digest, exampleWorkspace, readTraces } from '../helpers/workspace.js';
import { monolithWorkspace, syntheticMonolith } from '../helpers/monolith.js';
import { verifyChain } from '../../server/src/io/traces.js';
import { emptyState, type OnboardingState } from '../../server/src/schemas/state.js';

const GATES = ['onboarding_approve', 'onboarding_migrate', 'onboarding_rollback'] as const;

const harnesses = harnessesPerTest();

/** Bring a workspace to a state with a form-capable client, then close it. */
async function reach(state: 'no plan' | 'plan' | 'approved' | 'migrated'): Promise<string> {
  const root = exampleWorkspace();
  if (state === 'no plan') return root;
  const h = await harnesses.open({ root, caps: { elicitation: {} }, elicit: [YES_APPROVE, YES_MIGRATE] });
  await h.call('onboarding_propose', { narrate: false });
  if (state !== 'plan') expect((await h.call('onboarding_approve', {})).isError).toBeFalsy();
  if (state === 'migrated') expect((await h.call('onboarding_migrate', {})).isError).toBeFalsy();
  await h.close();
  return root;
}

/** onboarding.json without the trace chain's own bookkeeping; a missing file reads as the empty record. */
async function stateRecord(root: string): Promise<Record<string, unknown>> {
  const text = await fsp.readFile(path.join(root, '.copilot-state', 'onboarding.json'), 'utf8').catch(() => null);
  const { chains: _c, workspaceId: _w, updatedAt: _u, version: _v, ...rest } = text === null ? emptyState('') : (JSON.parse(text) as OnboardingState);
  return rest;
}

describe('a client without form elicitation is refused first, in every state', () => {
  it.each(['no plan', 'plan', 'approved', 'migrated'] as const)('%s', async (state) => {
    const root = await reach(state);
    const h = await harnesses.open({ root, caps: {}, clientName: 'PlainClient' });
    const before = await digest(root);
    const stateBefore = await stateRecord(root);
    const tracesBefore = (await readTraces(root)).length;
    for (const tool of GATES) {
      const r = await h.call(tool, {});
      expect(r.isError).toBe(true);
      const text = textOf(r);
      expect(text).toMatch(/^ELICITATION_UNSUPPORTED: /);
      expect(text).toContain('PlainClient 1.2.3');
      expect(text).toMatch(/Nothing was changed/);
      expect(text).toMatch(/VS Code.*Copilot CLI.*Claude Code.*Cursor.*MCP Inspector/);
      if (tool === 'onboarding_rollback') expect(text).toContain('copilot-onboarding rollback');
      expect(r.structuredContent).toMatchObject({ outcome: 'unsupported', error: { code: 'ELICITATION_UNSUPPORTED' } });
    }
    expect(await digest(root)).toEqual(before);
    // Appending the traces updates only the chain bookkeeping (the last link, the workspace id).
    expect(await stateRecord(root)).toEqual(stateBefore);
    const added = (await readTraces(root)).slice(tracesBefore);
    expect(added.map((t) => `${t.action}:${t.outcome}:${String(t.code)}`)).toEqual([
      'approve:unsupported:ELICITATION_UNSUPPORTED',
      'migrate:unsupported:ELICITATION_UNSUPPORTED',
      'rollback:unsupported:ELICITATION_UNSUPPORTED',
    ]);
    expect(added.every((t) => (t.client as { name: string }).name === 'PlainClient')).toBe(true);
    expect((await verifyChain(root, 'elicitation')).ok).toBe(true);
  });
});

describe('every refusal before a form leaves one "refused" trace with its code', () => {
  async function open(root: string, elicit: ElicitResult[] = []): Promise<Harness> {
    return harnesses.open({ root, caps: { elicitation: {} }, elicit });
  }
  async function expectRefusedTrace(h: Harness, tool: string, code: string, action: string): Promise<void> {
    const before = await digest(h.root);
    const n = (await readTraces(h.root)).length;
    const r = await h.call(tool, {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(new RegExp(`^${code}: `));
    expect(r.structuredContent).toMatchObject({ outcome: 'refused', error: { code } });
    const added = (await readTraces(h.root)).slice(n);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ action, outcome: 'refused', code, message: '', response: null, channel: 'mcp' });
    expect((r.structuredContent as { trace: string }).trace).toMatch(/^\.copilot-state\/elicitation-traces\/.+\.json$/);
    expect(h.shown).toHaveLength(0);
    expect(await digest(h.root)).toEqual(before);
  }

  it('PLAN_NOT_FOUND from approve and migrate; NO_MIGRATION from rollback', async () => {
    const h = await open(exampleWorkspace());
    await expectRefusedTrace(h, 'onboarding_approve', 'PLAN_NOT_FOUND', 'approve');
    await expectRefusedTrace(h, 'onboarding_migrate', 'PLAN_NOT_FOUND', 'migrate');
    await expectRefusedTrace(h, 'onboarding_rollback', 'NO_MIGRATION', 'rollback');
    expect((await verifyChain(h.root, 'elicitation')).ok).toBe(true);
  });

  it('NOT_APPROVED from migrate, again and again: each call is visible', async () => {
    const h = await open(exampleWorkspace());
    await h.call('onboarding_propose', { narrate: false });
    for (let i = 0; i < 3; i++) await expectRefusedTrace(h, 'onboarding_migrate', 'NOT_APPROVED', 'migrate');
    expect((await readTraces(h.root)).map((t) => t.outcome)).toEqual(['refused', 'refused', 'refused']);
  });

  it('PLAN_STALE from approve and migrate', async () => {
    const h = await open(exampleWorkspace(), [YES_APPROVE]);
    await h.call('onboarding_propose', { narrate: false });
    expect((await h.call('onboarding_approve', {})).isError).toBeFalsy();
    h.shown.length = 0;
    await fsp.appendFile(path.join(h.root, '.github', 'copilot-instructions.md'), '\nA new line.\n');
    await expectRefusedTrace(h, 'onboarding_migrate', 'PLAN_STALE', 'migrate');
    await expectRefusedTrace(h, 'onboarding_approve', 'PLAN_STALE', 'approve');
  });

  it('NOTHING_TO_MIGRATE from approve and migrate', async () => {
    const h = await open(monolithWorkspace('# Rules\n\nAlways be kind.\n'));
    const p = await h.call('onboarding_propose', { narrate: false });
    expect((p.structuredContent as { nothingToMigrate: boolean }).nothingToMigrate).toBe(true);
    await expectRefusedTrace(h, 'onboarding_approve', 'NOTHING_TO_MIGRATE', 'approve');
    await expectRefusedTrace(h, 'onboarding_migrate', 'NOTHING_TO_MIGRATE', 'migrate');
  });

  it('a refusal never counts as an approval decision: an approved plan stays approved after a refused approve', async () => {
    const h = await open(exampleWorkspace(), [YES_APPROVE, YES_MIGRATE]);
    await h.call('onboarding_propose', { narrate: false });
    expect((await h.call('onboarding_approve', {})).isError).toBeFalsy();
    const bad = await h.call('onboarding_approve', { planId: 'ffffffffffffffff' });
    expect(bad.isError).toBe(true);
    expect((await readTraces(h.root)).at(-1)).toMatchObject({ action: 'approve', outcome: 'refused', subject: { planId: 'ffffffffffffffff' } });
    const m = await h.call('onboarding_migrate', {});
    expect(m.isError, textOf(m)).toBeFalsy();
  });
});

describe('bounded results and narration', () => {
  it('propose over the SDK on a 1 MB synthetic monolith: the whole result stays under 256 KB and says where the rest is', async () => {
    const root = monolithWorkspace(await syntheticMonolith(1 << 20));
    const h = await harnesses.open({ root });
    for (const tool of ['onboarding_analyze', 'onboarding_propose']) {
      const r = await h.call(tool, { narrate: false });
      expect(r.isError, textOf(r)).toBeFalsy();
      const size = Buffer.byteLength(JSON.stringify(r));
      expect(size, `${tool}: ${size} bytes`).toBeLessThan(256 * 1024);
      const sc = r.structuredContent as { truncated?: { counts: Record<string, number>; note: string }; sections: unknown[] };
      expect(sc.sections).toHaveLength(100);
      expect(sc.truncated?.counts.sections).toBeGreaterThan(100);
      if (tool === 'onboarding_propose') expect(sc.truncated?.note).toContain('copilot-onboarding://plan/current');
    }
  }, 60_000);

  it('a 1 MB heading does not make a 1 MB result', async () => {
    const root = monolithWorkspace(`# ${'x'.repeat(1 << 20)}\n\nText.\n\n## TypeScript\n\nUse strict in src/.\n`);
    const h = await harnesses.open({ root });
    for (const tool of ['onboarding_analyze', 'onboarding_propose']) {
      const r = await h.call(tool, { narrate: false });
      expect(Buffer.byteLength(JSON.stringify(r))).toBeLessThan(256 * 1024);
    }
  }, 60_000);

  it.each([
    ['code -1', -1, 'User rejected sampling request'],
    ['-32603 "rejected"', -32603, 'Request rejected by user'],
  ])('a sampling Reject (%s) is traced "declined" and the text says so', async (_n, code, message) => {
    const root = exampleWorkspace();
    const h = await harnesses.open({ root, caps: { sampling: {} } });
    h.client.removeRequestHandler('sampling/createMessage');
    const { McpError, CreateMessageRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    h.client.setRequestHandler(CreateMessageRequestSchema, () => {
      throw new McpError(code, message);
    });
    const r = await h.call('onboarding_propose', {});
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toMatch(/^The narration was declined/);
    const dir = path.join(root, '.copilot-state', 'sampling-traces');
    const files = (await fsp.readdir(dir)).filter((f) => f.endsWith('.json') && !f.startsWith('.'));
    const t = JSON.parse(await fsp.readFile(path.join(dir, files[0]!), 'utf8')) as { outcome: string; fallback_used: boolean };
    expect(t).toMatchObject({ outcome: 'declined', fallback_used: true });
  });
});
