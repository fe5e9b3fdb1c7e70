/**
 * question_summary's document is the header comment plus one yaml Document of all entries, and
 * it parses back to exactly the saved questions and answers, whatever their text holds. A FIFO
 * named like a question file is skipped, never read (reading it would block forever).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { questionsDir, saveQuestion, summarizeQuestions } from '../../server/src/io/questions.js';
import { removeWorkspace, tempWorkspace } from '../helpers/harness.js';

let root: string;
beforeEach(() => {
  root = tempWorkspace('co-qsummary-');
});
afterEach(() => removeWorkspace(root));

/** Strings that exercise the double-quoted renderer: newlines (folded past 40 chars), escapes, markers, unicode. */
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\t', '"', '\\', '#', ':', '-', '---', '...', '\u0000', '\u0085', '\u2028', 'é', '😀'), maxLength: 60 }),
  fc.constantFrom('', '---', '...', '- x', 'null', 'true', '123', '"', "'", 'x'.repeat(200), `${'word '.repeat(30)}\n\n${'more '.repeat(20)}\n tail`),
);

describe('summarizeQuestions renders one yaml document', () => {
  it('header, then entries that parse back to what was saved (random text)', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ question: text, answer: text }), { minLength: 1, maxLength: 6 }), async (qas) => {
        const saved = [];
        for (const qa of qas) {
          const timestamp = new Date(Date.UTC(2026, 0, 1) + n++ * 1000).toISOString();
          saved.push({ timestamp, ...qa });
          await saveQuestion(root, { timestamp, ...qa, trace: 'elicitation-traces/x.json' });
        }
        const res = await summarizeQuestions(root, { limit: qas.length, now: '2026-02-01T00:00:00.000Z' });
        expect(res.summary.startsWith(`# Question/Answer History\n# Generated: 2026-02-01T00:00:00.000Z\n# Total Q&A Pairs: ${n}\nentries:\n`)).toBe(true);
        expect(parse(res.summary)).toEqual({ entries: saved });
      }),
      { numRuns: 40 },
    );
  });

  it('no questions: `entries: []`', async () => {
    const res = await summarizeQuestions(root, { now: 'T' });
    expect(res.summary).toBe('# Question/Answer History\n# Generated: T\n# Total Q&A Pairs: 0\nentries: []\n');
  });

  it('a FIFO named like a question file is skipped as not a regular file, without hanging', async (ctx) => {
    await saveQuestion(root, { timestamp: '2026-01-01T00:00:00.000Z', question: 'Q?', answer: 'A', trace: 't.json' });
    try {
      execFileSync('mkfifo', [path.join(questionsDir(root), '20260101_000001_0000000000000_question.yaml')]);
    } catch {
      ctx.skip(); // no mkfifo on this machine
    }
    const res = await summarizeQuestions(root);
    expect(res).toMatchObject({ count: 1, total: 2, skipped: [{ file: '.copilot-state/questions/20260101_000001_0000000000000_question.yaml', reason: 'not a regular file' }] });
  });
});
