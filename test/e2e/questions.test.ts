import { execFileSync } from 'node:child_process';
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connect, removeWorkspace, textOf, type Harness } from '../helpers/harness.js';
import { questionForm } from '../../server/src/core/form-render.js';
import { verifyChain } from '../../server/src/io/traces.js';
import type { ElicitationTrace } from '../../server/src/schemas/trace.js';

let h: Harness | undefined;
afterEach(async () => {
  if (h) {
    await h.close();
    removeWorkspace(h.root);
    h = undefined;
  }
});

const qdir = (root: string) => path.join(root, '.copilot-state', 'questions');
const tdir = (root: string) => path.join(root, '.copilot-state', 'elicitation-traces');
async function traces(root: string): Promise<ElicitationTrace[]> {
  const files = (await fsp.readdir(tdir(root)).catch(() => [] as string[])).filter((f) => f.endsWith('.json') && !f.startsWith('.'));
  const recs = await Promise.all(files.map(async (f) => JSON.parse(await fsp.readFile(path.join(tdir(root), f), 'utf8')) as ElicitationTrace));
  return recs.sort((a, b) => a.seq - b.seq);
}
async function questionFiles(root: string): Promise<string[]> {
  return (await fsp.readdir(qdir(root)).catch(() => [] as string[])).sort();
}

describe('tool listing', () => {
  it('lists question_ask only for clients that declared elicitation', async () => {
    h = await connect({ caps: {} });
    let names = (await h.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('question_summary');
    expect(names).not.toContain('question_ask');
    expect(h.listChanged).toBe(0);
    await h.close();
    removeWorkspace(h.root);
    h = await connect({ caps: { elicitation: {} } });
    names = (await h.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('question_ask');
    expect(h.listChanged).toBe(1);
  });

  it('a url-only elicitation client does not get question_ask', async () => {
    h = await connect({ caps: { elicitation: { url: {} } } });
    expect((await h.client.listTools()).tools.map((t) => t.name)).not.toContain('question_ask');
  });

  it('calling question_ask anyway without the capability is refused (tool disabled)', async () => {
    h = await connect({ caps: {} });
    const r = await h.call('question_ask', { question: 'Which test runner?' });
    expect(r.isError).toBe(true);
    expect(await questionFiles(h.root)).toEqual([]);
  });
});

describe('question_ask', () => {
  const tricky = [
    'Option "A": yes',
    'key: value # not a comment',
    'line one\nline two\n\n  indented',
    '日本語の回答 — emoji 🎉, ümlauts',
    "- a list item? 'quoted' & *star* {brace} [bracket] | pipe > gt",
    'null',
    'true',
    '0123',
  ];

  it.each(tricky)('round-trips the answer %j through YAML', async (answer) => {
    h = await connect({ caps: { elicitation: {} }, elicit: [{ action: 'accept', content: { answer } }] });
    const question = `What about ${answer}? # with: colon`;
    const r = await h.call('question_ask', { question });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ answer });
    const saved = (r.structuredContent as { saved_to: string }).saved_to;
    expect(saved).toMatch(/^\.copilot-state\/questions\/\d{8}_\d{6}_[0-9a-z]+_question\.yaml$/);
    const text = await fsp.readFile(path.join(h.root, saved), 'utf8');
    expect(text.startsWith('# Saved at ')).toBe(true);
    const doc = parse(text) as Record<string, unknown>;
    expect(doc).toMatchObject({ question, answer });
    expect(doc.trace).toMatch(/^elicitation-traces\/.*-question\.json$/);
    // The human saw the question through the form renderer (CommonMark specials escaped), with a string field.
    expect(h.shown[0]!.message).toBe(questionForm(question));
    expect((h.shown[0] as { requestedSchema: { properties: Record<string, { type: string }> } }).requestedSchema.properties.answer!.type).toBe('string');
    const [t] = await traces(h.root);
    expect(t).toMatchObject({ action: 'question', outcome: 'answered', channel: 'mcp', client: { name: 'test-client', version: '1.2.3' }, message: questionForm(question) });
    expect(t!.response).toEqual({ action: 'accept', content: { answer } });
  });

  it.each([
    ['decline', { action: 'decline' as const }, 'declined'],
    ['cancel', { action: 'cancel' as const }, 'cancelled'],
    ['accept without content', { action: 'accept' as const }, 'error'],
  ])('%s returns a clear non-answer, writes no question file, and is traced', async (_n, resp, outcome) => {
    h = await connect({ caps: { elicitation: {} }, elicit: [resp] });
    const r = await h.call('question_ask', { question: 'Scope of the Testing section?' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/No answer/);
    expect(await questionFiles(h.root)).toEqual([]);
    const [t] = await traces(h.root);
    expect(t!.outcome).toBe(outcome);
  });

  it('treats an answer of the wrong type as an error (the SDK would throw; we trace it)', async () => {
    h = await connect({ caps: { elicitation: {} }, elicit: [() => ({ action: 'accept', content: { answer: 42 } }) as never] });
    const r = await h.call('question_ask', { question: 'Number?' });
    expect(r.isError).toBe(true);
    expect(await questionFiles(h.root)).toEqual([]);
    expect((await traces(h.root))[0]!.outcome).toBe('error');
  });

  it('times out when configured, and a timeout counts as a cancel', async () => {
    h = await connect({ caps: { elicitation: {} }, elicit: ['hang'], config: { questionTimeoutMs: 150 } });
    const r = await h.call('question_ask', { question: 'Will you answer?' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/No answer within/);
    expect((await traces(h.root))[0]).toMatchObject({ outcome: 'timeout' });
    expect(await questionFiles(h.root)).toEqual([]);
  });

  it('waits beyond the SDK 60 s default when there is no timeout (shown with a slow human and heartbeats)', async () => {
    // The human answers after 700 ms; the client's own call timeout is 400 ms but resets on progress.
    h = await connect({
      caps: { elicitation: {} },
      elicit: [async () => {
        await new Promise((r) => setTimeout(r, 700));
        return { action: 'accept', content: { answer: 'late but fine' } };
      }],
      config: { questionTimeoutMs: 0, heartbeatMs: 100 },
    });
    const progress: unknown[] = [];
    const r = await h.call('question_ask', { question: 'Slow?' }, { timeout: 400, onprogress: (p) => progress.push(p) });
    expect(r.structuredContent).toMatchObject({ answer: 'late but fine' });
    expect(progress.length).toBeGreaterThanOrEqual(3);
  });

  it('MCP cancellation of the tool call aborts the pending elicitation', async () => {
    h = await connect({ caps: { elicitation: {} }, elicit: ['hang'] });
    const ac = new AbortController();
    const pending = h.call('question_ask', { question: 'Cancel me' }, { signal: ac.signal });
    await h.waitForElicitation();
    ac.abort('user pressed stop');
    await expect(pending).rejects.toThrow();
    await h.waitForAbort();
    expect(h.aborted).toBe(1);
    const root = h.root;
    await vi.waitFor(async () => expect((await traces(root))[0]).toMatchObject({ outcome: 'cancelled', error: expect.not.stringMatching(/disconnect/) }));
    expect(await questionFiles(h.root)).toEqual([]);
  });

  it('client disconnect during the form is a cancel and saves nothing', async () => {
    h = await connect({ caps: { elicitation: {} }, elicit: ['hang'] });
    const root = h.root;
    const pending = h.call('question_ask', { question: 'Disconnect' }).catch((e: Error) => e);
    await h.waitForElicitation();
    await h.close();
    h = undefined;
    expect(await pending).toBeInstanceOf(Error);
    await vi.waitFor(async () => expect((await traces(root))[0]).toMatchObject({ outcome: 'cancelled', error: expect.stringMatching(/^disconnect: /) }));
    expect(await questionFiles(root)).toEqual([]);
    removeWorkspace(root);
  });

  it('rejects an over-long question before asking anyone', async () => {
    h = await connect({ caps: { elicitation: {} }, elicit: [] });
    const r = await h.call('question_ask', { question: 'x'.repeat(1024 * 1024) });
    expect(r.isError).toBe(true);
    expect(h.shown).toHaveLength(0);
  });

  it('many questions in one second get unique files and one intact chain', async () => {
    const n = 30;
    h = await connect({ caps: { elicitation: {} }, elicit: Array.from({ length: n }, (_, i) => ({ action: 'accept' as const, content: { answer: `a${i}` } })) });
    for (let i = 0; i < n; i++) await h.call('question_ask', { question: `q${i}` });
    const files = await questionFiles(h.root);
    expect(new Set(files).size).toBe(n);
    const s = await h.call('question_summary', {});
    const doc = parse((s.structuredContent as { summary: string }).summary) as { entries: Array<{ answer: string }> };
    expect(doc.entries.map((e) => e.answer)).toEqual(Array.from({ length: n }, (_, i) => `a${i}`));
    expect((await verifyChain(h.root, 'elicitation')).ok).toBe(true);
  });
});

describe('question_summary', () => {
  async function seed(n: number): Promise<Harness> {
    const hh = await connect({ caps: { elicitation: {} }, elicit: Array.from({ length: n }, (_, i) => ({ action: 'accept' as const, content: { answer: `answer ${i}` } })) });
    for (let i = 0; i < n; i++) await hh.call('question_ask', { question: `question ${i}` });
    return hh;
  }

  it('is always listed and returns valid YAML with a header, oldest first', async () => {
    h = await seed(3);
    const r = await h.call('question_summary', {});
    const sc = r.structuredContent as { summary: string; count: number; total: number; skipped: unknown[] };
    expect(sc).toMatchObject({ count: 3, total: 3, skipped: [] });
    expect(sc.summary).toMatch(/^# Question\/Answer History\n# Generated: .*\n# Total Q&A Pairs: 3\n/);
    const doc = parse(sc.summary) as { entries: Array<{ question: string; answer: string; timestamp: string }> };
    expect(doc.entries.map((e) => e.question)).toEqual(['question 0', 'question 1', 'question 2']);
  });

  it('limit returns the most recent N, still oldest first', async () => {
    h = await seed(5);
    const r = await h.call('question_summary', { limit: 2 });
    const sc = r.structuredContent as { summary: string; count: number; total: number };
    expect(sc).toMatchObject({ count: 2, total: 5 });
    expect((parse(sc.summary) as { entries: Array<{ answer: string }> }).entries.map((e) => e.answer)).toEqual(['answer 3', 'answer 4']);
    const big = await h.call('question_summary', { limit: 50 });
    expect(big.structuredContent).toMatchObject({ count: 5, total: 5 });
  });

  it.each([0, -1, 1.5])('rejects limit %s', async (limit) => {
    h = await connect({});
    const r = await h.call('question_summary', { limit });
    expect(r.isError).toBe(true);
  });

  it('skips and reports corrupted files, never fatal', async () => {
    h = await seed(3);
    const files = await questionFiles(h.root);
    await fsp.writeFile(path.join(qdir(h.root), files[1]!), 'answer: [unclosed\n  - : :');
    await fsp.writeFile(path.join(qdir(h.root), '20260101_000000_zzzz_question.yaml'), 'a: &a [*a, *a]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n');
    await fsp.writeFile(path.join(qdir(h.root), 'notes.txt_question.yaml'), 'x');
    const r = await h.call('question_summary', {});
    const sc = r.structuredContent as { count: number; skipped: Array<{ file: string; reason: string }>; summary: string };
    expect(r.isError).toBeFalsy();
    expect(sc.count).toBe(2);
    expect(sc.skipped.map((s) => s.file).sort()).toEqual(
      [`.copilot-state/questions/${files[1]}`, '.copilot-state/questions/20260101_000000_zzzz_question.yaml', '.copilot-state/questions/notes.txt_question.yaml'].sort(),
    );
    expect(() => parse(sc.summary)).not.toThrow();
  });

  it('skips a FIFO, a folder and a symlink named like question files without reading them (no hang)', async () => {
    h = await seed(2);
    const files = await questionFiles(h.root);
    const q = qdir(h.root);
    let fifo = false;
    try {
      execFileSync('mkfifo', [path.join(q, '20260101_000001_fifo_question.yaml')]);
      fifo = true;
    } catch {
      /* no mkfifo on this machine */
    }
    await fsp.mkdir(path.join(q, '20260101_000002_dir_question.yaml'));
    await fsp.symlink(path.join(q, files[0]!), path.join(q, '20260101_000003_link_question.yaml'));
    const r = await h.call('question_summary', {});
    const sc = r.structuredContent as { count: number; skipped: Array<{ file: string; reason: string }> };
    expect(r.isError).toBeFalsy();
    expect(sc.count).toBe(2);
    const expected = [
      ...(fifo ? [{ file: '.copilot-state/questions/20260101_000001_fifo_question.yaml', reason: 'not a regular file' }] : []),
      { file: '.copilot-state/questions/20260101_000002_dir_question.yaml', reason: 'not a regular file' },
      { file: '.copilot-state/questions/20260101_000003_link_question.yaml', reason: 'not a regular file' },
    ];
    expect([...sc.skipped].sort((a, b) => a.file.localeCompare(b.file))).toEqual(expected);
  });

  it('with no questions returns an empty, valid document', async () => {
    h = await connect({});
    const r = await h.call('question_summary', {});
    expect(r.structuredContent).toMatchObject({ count: 0, total: 0 });
    expect(parse((r.structuredContent as { summary: string }).summary)).toEqual({ entries: [] });
  });
});
