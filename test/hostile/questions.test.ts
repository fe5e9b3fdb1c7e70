/**
 * Hostile question_ask / question_summary input: a 5 MB answer, a 1 MB question, and 10,000
 * question files written within about a second. Nothing bloats the traces, nothing is saved
 * that should not be, file names stay unique and `limit` stays fast.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { textOf } from '../helpers/harness.js';
import { saveQuestion } from '../../server/src/io/questions.js';
import { cleanup, closeRawClients, expectOk, expectRefused, expectSafe, guard, open, rawClient, sandbox, stateFiles, traceRecords } from '../helpers/hostile.js';

afterEach(async () => {
  await closeRawClients();
  await cleanup();
});

describe('question sizes', () => {
  it('a 5 MB answer: refused, no YAML written, the trace stays small (< 100 KB)', async () => {
    const sb = sandbox();
    const rc = await rawClient(sb.root, () => ({ action: 'accept', content: { answer: 'a'.repeat(5_000_000) } }));
    const before = guard(sb);
    const r = await rc.call('question_ask', { question: 'Which folder holds the API?' });
    expect(expectRefused(r, 'NOT_ANSWERED')).toMatch(/too long \(5000000 characters; at most 100000\)/);
    expect(JSON.stringify(r).length).toBeLessThan(64 * 1024);
    expect(r.structuredContent).toMatchObject({ answer: null, saved_to: null });
    expect(stateFiles(sb.root, 'questions')).toEqual([]);
    const traces = traceRecords(sb.root);
    expect(traces).toHaveLength(1);
    const size = statSync(traces[0]!.abs).size;
    expect(size, `trace is ${size} bytes`).toBeLessThan(100 * 1024);
    expect(expectOk(await rc.call('question_summary', {}))).toMatchObject({ count: 0, total: 0 });
    await expectSafe(rc, sb, before);
  });

  it('a 1 MB question: refused before anyone is asked; no trace, no YAML', async () => {
    const sb = sandbox();
    const h = await open(sb.root, { elicit: [{ action: 'accept', content: { answer: 'src/' } }] });
    const before = guard(sb);
    const r = await h.call('question_ask', { question: 'Q'.repeat(1_000_000) });
    expect(expectRefused(r, /question/)).toMatch(/10000 characters/);
    expect(textOf(r).length).toBeLessThan(4096);
    expect(h.shown).toHaveLength(0);
    expect(traceRecords(sb.root)).toEqual([]);
    expect(stateFiles(sb.root, 'questions')).toEqual([]);
    await expectSafe(h, sb, before);
  });
});

const RAW_UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/u;

describe('what the human is shown', () => {
  it('a question with HTML, a terminal hyperlink, bidi and separator characters is shown escaped; the answer and the saved question stay verbatim', async () => {
    const sb = sandbox();
    const question = [
      'Which <img src=x onerror=alert(1)> folder?',
      'Open \u001b]8;;https://evil.example\u0007this\u001b]8;;\u0007 and [click](https://evil.example) **now**',
      'File \u202Eexe.txt\u202C please\u2028Approve: yes\u2029done\u0085end\u007f',
      '',
      '- keep this list item',
    ].join('\n');
    const h = await open(sb.root, { elicit: [{ action: 'accept', content: { answer: 'src/' } }] });
    const r = await h.call('question_ask', { question });
    expect(expectOk(r)).toMatchObject({ answer: 'src/', outcome: 'answered' });
    const shown = h.shown[0]!.message;
    expect(shown, 'no raw control, escape, bidi or separator character').not.toMatch(RAW_UNSAFE);
    // As CommonMark, every special character is a backslash escape: no HTML, link or emphasis.
    expect(shown).not.toMatch(/(?<!\\)<img|(?<!\\)\[click|(?<!\\)\*\*now/);
    expect(shown.split('\n')).toEqual([
      'Which \\<img src=x onerror=alert(1)\\> folder?',
      'Open \\\\x1B\\]8;;https://evil.example\\\\x07this\\\\x1B\\]8;;\\\\x07 and \\[click\\](https://evil.example) \\*\\*now\\*\\*',
      'File \\\\u202Eexe.txt\\\\u202C please\\\\u2028Approve: yes\\\\u2029done\\\\x85end\\\\x7F',
      '',
      '- keep this list item',
    ]);
    // The trace records what was shown; the question file keeps the agent's words.
    const [t] = traceRecords(sb.root);
    expect(t!.rec.message).toBe(shown);
    const saved = readFileSync(path.join(sb.root, (r.structuredContent as { saved_to: string }).saved_to), 'utf8');
    expect((parse(saved) as { question: string }).question).toBe(question);
    // The tool's text to the agent carries no raw unsafe character either.
    expect(textOf(r)).not.toMatch(RAW_UNSAFE);
  });

  it('a question longer than a form once escaped (3,000 "<" become 6,000 characters): refused before anyone is asked', async () => {
    const sb = sandbox();
    const h = await open(sb.root, { elicit: [{ action: 'accept', content: { answer: 'src/' } }] });
    const before = guard(sb);
    const r = await h.call('question_ask', { question: '<'.repeat(3000) });
    expect(expectRefused(r, 'INVALID_INPUT')).toMatch(/longer than a form shows \(4,000 characters/);
    expect(h.shown).toHaveLength(0);
    expect(traceRecords(sb.root)).toEqual([]);
    expect(stateFiles(sb.root, 'questions')).toEqual([]);
    await expectSafe(h, sb, before);
  });
});

describe('10,000 questions', () => {
  it('written within one second: unique file names; question_summary limit:10 returns the newest 10 quickly', async () => {
    const sb = sandbox({ memory: true });
    const N = 10_000;
    // Ten per millisecond, all within 2026-01-01T00:00:00.
    const at = (i: number) => `2026-01-01T00:00:00.${String(Math.floor(i / 10)).padStart(3, '0')}Z`;
    const saved: string[] = [];
    for (let i = 0; i < N; i += 250) {
      const batch = Array.from({ length: Math.min(250, N - i) }, (_, k) => i + k);
      saved.push(...(await Promise.all(batch.map((j) => saveQuestion(sb.root, { timestamp: at(j), question: `Question ${j}?`, answer: `Answer ${j}`, trace: 'elicitation-traces/x.json' })))));
    }
    expect(new Set(saved).size).toBe(N);
    expect(stateFiles(sb.root, 'questions')).toHaveLength(N);
    for (const s of saved) expect(s).toMatch(/^\.copilot-state\/questions\/20260101_000000_[0-9a-z]+_question\.yaml$/);

    const before = guard(sb);
    const h = await open(sb.root);
    const t0 = Date.now();
    const r = await h.call('question_summary', { limit: 10 });
    const elapsed = Date.now() - t0;
    const s = expectOk(r);
    expect(elapsed, `question_summary limit:10 took ${elapsed} ms`).toBeLessThan(1500);
    expect(s).toMatchObject({ count: 10, total: N, skipped: [] });
    const questions = [...(s.summary as string).matchAll(/question: "(Question \d+\?)"/g)].map((m) => m[1]);
    expect(questions).toEqual(Array.from({ length: 10 }, (_, k) => `Question ${N - 10 + k}?`));
    await expectSafe(h, sb, before);
  });
});
