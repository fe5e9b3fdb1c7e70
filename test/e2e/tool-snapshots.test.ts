/**
 * Every tool as a client sees it (tools/list), snapshotted per tool so any change to a name,
 * description, schema or annotation shows up in review (github-mcp-server `toolsnaps`).
 * Update deliberately with `npx vitest run test/e2e/tool-snapshots.test.ts -u`.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, removeWorkspace, type Harness } from '../helpers/harness.js';
import { APPS_EXTENSION, PLAN_VIEW_DATA_TOOL, PLAN_VIEW_MIME } from '../../server/src/mcp/plan-view.js';

const ALL = [
  'onboarding_analyze',
  'onboarding_approve',
  'onboarding_migrate',
  'onboarding_propose',
  'onboarding_rollback',
  'onboarding_status',
  'question_ask',
  'question_summary',
];

let h: Harness;
let tools: Tool[];
beforeAll(async () => {
  // A client WITH elicitation, so question_ask is listed too.
  h = await connect({ caps: { elicitation: {} } });
  tools = (await h.client.listTools()).tools;
});
afterAll(async () => {
  await h.close();
  removeWorkspace(h.root);
});

const byName = (name: string) => {
  const t = tools.find((x) => x.name === name);
  if (!t) throw new Error(`${name} is not listed`);
  return t;
};

describe('tools/list', () => {
  it('lists exactly the eight tools of the contract', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(ALL);
  });

  it.each(ALL)('%s matches its snapshot', async (name) => {
    const t = byName(name);
    const snap = {
      name: t.name,
      title: t.title ?? null,
      description: t.description ?? null,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema ?? null,
      annotations: t.annotations ?? null,
    };
    await expect(JSON.stringify(snap, null, 2) + '\n').toMatchFileSnapshot(`./__snapshots__/tools/${name}.json`);
  });

  it('a client that renders MCP Apps also sees the plan view data tool, read-only and app-only, as its snapshot', async () => {
    const apps = await connect({ caps: { elicitation: {}, extensions: { [APPS_EXTENSION]: { mimeTypes: [PLAN_VIEW_MIME] } } } });
    try {
      const listed = (await apps.client.listTools()).tools;
      expect(listed.map((t) => t.name).sort()).toEqual([...ALL, PLAN_VIEW_DATA_TOOL].sort());
      const t = listed.find((x) => x.name === PLAN_VIEW_DATA_TOOL)!;
      expect(t.annotations?.readOnlyHint).toBe(true);
      const snap = { name: t.name, title: t.title ?? null, description: t.description ?? null, inputSchema: t.inputSchema, outputSchema: t.outputSchema ?? null, annotations: t.annotations ?? null, _meta: t._meta ?? null };
      await expect(JSON.stringify(snap, null, 2) + '\n').toMatchFileSnapshot(`./__snapshots__/tools/${t.name}.json`);
    } finally {
      await apps.close();
      removeWorkspace(apps.root);
    }
  });

  it('annotations are honest: read-only tools say so, destructive tools say so', () => {
    for (const name of ['onboarding_status', 'onboarding_analyze', 'onboarding_propose', 'question_summary']) {
      expect(byName(name).annotations?.readOnlyHint, name).toBe(true);
    }
    for (const name of ['onboarding_migrate', 'onboarding_rollback']) {
      const a = byName(name).annotations;
      expect(a?.destructiveHint, name).toBe(true);
      expect(a?.readOnlyHint, name).toBe(false);
    }
    for (const name of ['onboarding_approve', 'question_ask']) {
      expect(byName(name).annotations?.readOnlyHint, name).toBe(false);
    }
    for (const t of tools) expect(t.annotations?.openWorldHint, t.name).toBe(false);
  });

  it('no gate tool has an input that could express approval', () => {
    for (const name of ['onboarding_approve', 'onboarding_migrate', 'onboarding_rollback']) {
      const props = Object.keys((byName(name).inputSchema.properties ?? {}) as Record<string, unknown>);
      for (const p of props) expect(p, `${name}.${p}`).not.toMatch(/approv|confirm|accept|yes|force|risk/i);
    }
  });

  it('every schema is JSON Schema 2020-12 (the MCP default dialect): no draft-07 $schema, compiles under a strict 2020-12 validator', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    addFormats.default(ajv);
    for (const t of tools) {
      for (const [which, schema] of [['input', t.inputSchema], ['output', t.outputSchema]] as const) {
        if (!schema) continue;
        expect((schema as Record<string, unknown>).$schema, `${t.name} ${which}`).toBeUndefined();
        expect(JSON.stringify(schema), `${t.name} ${which}`).not.toContain('draft-07');
        expect(() => ajv.compile(schema), `${t.name} ${which}`).not.toThrow();
      }
    }
  });

  it('every tool has an output schema', () => {
    for (const t of tools) expect(t.outputSchema, t.name).toBeDefined();
  });
});
