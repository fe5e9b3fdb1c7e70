/**
 * What the human was shown, through the SDK client, for every gate form (approve, migrate,
 * rollback, rollback with edited files) on the bundled example, a 100 KiB and a 1 MiB synthetic
 * monolith, and hostile headings and globs: bounded, right as CommonMark (markdown-it, as VS Code
 * renders it) and as plain text, summary before the file list, and no control or bidi character.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import type { ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { YES_APPROVE, YES_MIGRATE, harnessesPerTest, textOf } from '../helpers/harness.js';
import { exampleWorkspace } from '../helpers/workspace.js';
import { monolithWorkspace, syntheticMonolith } from '../helpers/monolith.js';
import { sanitize } from '../../server/src/core/sanitize.js';

const md = new MarkdownIt('commonmark');
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;
const TAGS_ALLOWED = new Set(['p', 'ul', 'li', 'code']);
const html = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const NO: ElicitResult = { action: 'decline' };

const harnesses = harnessesPerTest();

interface Shown {
  form: string;
  message: string;
}

/** Every check on one message the human was shown. `mustShow`: paths and globs of the plan. */
function checkShown({ form, message }: Shown, mustShow: { paths: string[]; globs: string[] }): void {
  expect(message.length, form).toBeLessThanOrEqual(4000);
  expect(UNSAFE.test(message), `${form}: a control or bidi character survived`).toBe(false);
  const out = md.render(message);
  const tags = new Set([...out.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9-]*)/g)].map((m) => m[1]!.toLowerCase()));
  for (const t of tags) expect(TAGS_ALLOWED.has(t), `${form}: <${t}> in the rendered form`).toBe(true);
  const codes = new Set([...out.matchAll(/<code>([\s\S]*?)<\/code>/g)].map((m) => m[1]!));
  // Every path and glob the message names is shown verbatim (sanitized, never reinterpreted) in a code span.
  let checked = 0;
  for (const p of [...mustShow.paths, ...mustShow.globs]) {
    const shown = sanitize(p, p.length > 100 ? 100 : 160);
    if (!message.includes(shown.slice(0, 40))) continue; // not among the files listed
    checked++;
    expect(codes.has(html(shown)) || [...codes].some((c) => c.startsWith(html(shown.slice(0, 60)))), `${form}: ${JSON.stringify(p)} not in <code>`).toBe(true);
  }
  expect(checked, `${form}: no path of the plan was found in the message`).toBeGreaterThan(0);
  // Summary (risk, counts) before the file list; each block its own paragraph or list.
  const files = message.indexOf('Files (');
  if (files >= 0) {
    expect(message.indexOf('Summary:'), form).toBeGreaterThanOrEqual(0);
    expect(message.indexOf('Summary:'), form).toBeLessThan(files);
    if (form !== 'rollback' && form !== 'rollback-edited') expect(message.indexOf('Risk:'), form).toBeLessThan(files);
  }
  const blocks = out.match(/<(p|ul)>/g) ?? [];
  expect(blocks.length, form).toBe(message.split(/\n\n/).length);
  expect(out, form).toMatch(/<p>Choose Yes \(true\)[^<]*(<code>[^<]*<\/code>[^<]*)*<\/p>\n$/);
  for (const li of out.match(/<li>[\s\S]*?<\/li>/g) ?? []) expect(li, form).not.toMatch(/Risk:|Summary:|Choose Yes/);
}

async function fourForms(root: string): Promise<{ shown: Shown[]; plan: { paths: string[]; globs: string[] } }> {
  const h = await harnesses.open({ root, caps: { elicitation: {} }, elicit: [YES_APPROVE, YES_MIGRATE, NO, NO], config: { approvalTimeoutMs: 120_000 } });
  const p = await h.call('onboarding_propose', { narrate: false });
  expect(p.isError, textOf(p)).toBeFalsy();
  const plan = JSON.parse(await fsp.readFile(path.join(root, String((p.structuredContent as { planFile: string }).planFile)), 'utf8')) as {
    operations: Array<{ path: string }>;
    sections: Array<{ applyTo: string | null }>;
  };
  const a = await h.call('onboarding_approve', {});
  expect(a.isError, textOf(a)).toBeFalsy();
  const m = await h.call('onboarding_migrate', {});
  expect(m.isError, textOf(m)).toBeFalsy();
  expect((await h.call('onboarding_rollback', {})).isError).toBe(true);
  const created = plan.operations.map((o) => o.path).find((f) => f.startsWith('.github/instructions/'))!;
  await fsp.appendFile(path.join(root, created), '\nedited after the migration\n');
  expect((await h.call('onboarding_rollback', {})).isError).toBe(true);
  expect(h.shown).toHaveLength(4);
  const forms = ['approve', 'migrate', 'rollback', 'rollback-edited'];
  const shown = h.shown.map((s, i) => ({ form: forms[i]!, message: (s as { message: string }).message }));
  expect(shown[3]!.message).toMatch(/WARNING: 1 file was edited since the migration/);
  expect(shown[3]!.message).toMatch(new RegExp(`- Edited since the migration: \`${created.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\` is saved to \`\\.copilot-state/backups/[^\`]+\\.edited/\` first, then put back as before the migration\\.`));
  return { shown, plan: { paths: plan.operations.map((o) => o.path), globs: plan.sections.map((s) => s.applyTo).filter((g): g is string => g !== null) } };
}

const HOSTILE = [
  '# Hostile',
  '',
  'Intro.',
  '',
  '## TypeScript \u001b[31mred\u001b[0m \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007',
  '',
  'Use strict mode in src/.',
  '',
  '## React \u202Egnp.exe <migration id> **bold** `tick`',
  '',
  'Components in src/app.tsx.',
  '',
  `## Testing ${'long '.repeat(20_000)}`,
  '',
  'Line one\u2028forged line.',
  '',
].join('\n');

describe('the forms a person reads', () => {
  it.each([
    ['the bundled example', async () => exampleWorkspace()],
    ['a 100 KiB synthetic monolith', async () => monolithWorkspace(await syntheticMonolith(100 * 1024))],
    ['a 1 MiB synthetic monolith', async () => monolithWorkspace(await syntheticMonolith(1 << 20))],
    ['hostile headings', async () => monolithWorkspace(HOSTILE)],
  ])('%s: approve, migrate, rollback, rollback with edited files', async (_name, make) => {
    const { shown, plan } = await fourForms(await make());
    for (const s of shown) checkShown(s, plan);
  }, 180_000);

  it('hostile applyTo overrides are shown literally in code spans, never as emphasis', async () => {
    const root = exampleWorkspace();
    const h = await harnesses.open({ root, caps: { elicitation: {} }, elicit: [NO] });
    const p0 = await h.call('onboarding_propose', { narrate: false });
    const first = (p0.structuredContent as { sections: Array<{ id: string; applyTo: string | null }> }).sections.find((s) => s.applyTo)!;
    const glob = '**/*.ts,**/*.tsx';
    const p = await h.call('onboarding_propose', { narrate: false, overrides: [{ section: first.id, applyTo: glob }] });
    expect(p.isError, textOf(p)).toBeFalsy();
    await h.call('onboarding_approve', {});
    const message = (h.shown[0] as { message: string }).message;
    const out = md.render(message);
    expect(out).toContain(`<code>${glob}</code>`);
    expect(out).not.toMatch(/<strong>|<em>/);
  });
});
