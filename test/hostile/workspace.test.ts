/**
 * Hostile workspace roots: `--workspace` naming a file or a folder that does not exist. Every
 * tool must answer with a clear error that names the workspace (not an INTERNAL "unexpected
 * error"), never ask the human anything, and never create the folder or anything in it.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textOf, type ElicitScript } from '../helpers/harness.js';
import { YES_APPROVE, cleanup, open, sandbox } from '../helpers/hostile.js';
import { put } from '../helpers/files.js';

afterEach(cleanup);

const TOOLS: Array<[string, Record<string, unknown>]> = [
  ['onboarding_status', {}],
  ['onboarding_analyze', { narrate: false }],
  ['onboarding_propose', { narrate: false }],
  ['onboarding_approve', {}],
  ['onboarding_migrate', {}],
  ['onboarding_rollback', {}],
  ['question_summary', {}],
  ['question_ask', { question: 'Which folder holds the API?' }],
];

describe('--workspace that is not a usable folder', () => {
  it.each([
    ['a regular file', (parent: string) => (put(parent, 'not-a-folder.txt', 'x\n'), path.join(parent, 'not-a-folder.txt'))],
    ['a missing folder', (parent: string) => path.join(parent, 'does-not-exist')],
  ])('--workspace pointing to %s: every tool gives a clear error, asks nobody, creates nothing', async (_name, make) => {
    const sb = sandbox();
    const ws = make(sb.parent);
    const entriesBefore = readdirSync(sb.parent).sort();
    // A willing human: answers whatever form appears (a question with text, a gate with yes).
    const willing: ElicitScript = (p) =>
      'requestedSchema' in p && p.requestedSchema.properties.answer ? { action: 'accept', content: { answer: 'src/' } } : YES_APPROVE;
    const h = await open(ws, { elicit: Array.from({ length: 8 }, () => willing) });
    const problems: string[] = [];
    for (const [tool, args] of TOOLS) {
      const r = await h.call(tool, args);
      const text = textOf(r).replace(/\s+/g, ' ');
      // Clear: names the workspace and what is wrong with it; not an "unexpected" INTERNAL error.
      // onboarding_status may answer normally, as long as it says so; every other tool refuses.
      if (tool !== 'onboarding_status' && !r.isError) problems.push(`${tool}: not an error: ${text.slice(0, 160)}`);
      if (tool !== 'onboarding_status' && !text.includes('WORKSPACE_INVALID')) problems.push(`${tool}: not WORKSPACE_INVALID: ${text.slice(0, 160)}`);
      if (!text.includes(ws)) problems.push(`${tool}: does not name the workspace: ${text.slice(0, 160)}`);
      if (/INTERNAL|Unexpected error/.test(text)) problems.push(`${tool}: INTERNAL instead of a clear error: ${text.slice(0, 160)}`);
      if (!/does not exist|not a folder|not a directory|is a file/i.test(text)) problems.push(`${tool}: does not say what is wrong with the workspace: ${text.slice(0, 160)}`);
    }
    if (h.shown.length) problems.push(`the human was asked ${h.shown.length} form(s) about a workspace that is not a folder`);
    const after = readdirSync(sb.parent).sort();
    if (JSON.stringify(after) !== JSON.stringify(entriesBefore)) problems.push(`entries next to the workspace changed: ${JSON.stringify(entriesBefore)} -> ${JSON.stringify(after)}`);
    if (!ws.endsWith('.txt') && existsSync(ws)) problems.push(`the missing workspace folder was created: ${readdirSync(ws).join(', ')}`);
    expect(problems).toEqual([]);
  });
});
