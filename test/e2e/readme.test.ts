/**
 * The README says what the code does: its tool table is made from the tools a client lists
 * (name, title, the description's first sentence, the destructive hint), and it links every page in
 * docs/. After changing a tool, rewrite the table with
 *   UPDATE_README=1 npx vitest run test/e2e/readme.test.ts
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, removeWorkspace, type Harness } from '../helpers/harness.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const README = path.join(REPO, 'README.md');
const START = '<!-- tools: made from tools/list by test/e2e/readme.test.ts -->';
const END = '<!-- /tools -->';

/** Whether the tool may change instruction files (its MCP destructive hint). */
const changes = (t: Tool) => (t.annotations?.destructiveHint ? 'yes, after a form' : 'no');

/** The description's first sentence (a period followed by a space or the end). */
const firstSentence = (s: string) => s.match(/^.*?\.(?=\s|$)/s)?.[0] ?? s;

function table(tools: Tool[]): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/\s+/g, ' ');
  const rows = tools.map((t) => `| \`${t.name}\` | ${cell(t.title ?? '')} | ${cell(firstSentence(t.description ?? ''))} | ${changes(t)} |`);
  return ['| tool | title | what it does | changes instruction files |', '|---|---|---|---|', ...rows].join('\n');
}

let h: Harness;
let tools: Tool[];
beforeAll(async () => {
  // A client with elicitation, so question_ask is listed too.
  h = await connect({ caps: { elicitation: {} } });
  tools = (await h.client.listTools()).tools;
});
afterAll(async () => {
  await h.close();
  removeWorkspace(h.root);
});

describe('README', () => {
  it('its tool table is the tools a client lists', () => {
    const text = readFileSync(README, 'utf8');
    const a = text.indexOf(START);
    const b = text.indexOf(END);
    expect(a, `README.md has no "${START}" … "${END}" block`).toBeGreaterThanOrEqual(0);
    expect(b).toBeGreaterThan(a);
    const want = `${START}\n${table(tools)}\n${END}`;
    if (process.env.UPDATE_README) writeFileSync(README, text.slice(0, a) + want + text.slice(b + END.length));
    else expect(text.slice(a, b + END.length), 'rewrite it with UPDATE_README=1 npx vitest run test/e2e/readme.test.ts').toBe(want);
    expect(tools.length).toBeGreaterThanOrEqual(8);
  });

  it('links every page in docs/', () => {
    const text = readFileSync(README, 'utf8');
    const pages = readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md'));
    expect(pages.length).toBeGreaterThan(0);
    expect(pages.filter((f) => !text.includes(`](docs/${f})`))).toEqual([]);
  });

  it('draws the flow as a Mermaid diagram naming every gate tool', () => {
    const mermaid = readFileSync(README, 'utf8').match(/```mermaid\n([\s\S]*?)```/)?.[1] ?? '';
    for (const tool of ['onboarding_analyze', 'onboarding_propose', 'onboarding_approve', 'onboarding_migrate', 'onboarding_rollback']) expect(mermaid).toContain(tool);
  });
});
