/**
 * question_summary's document is the header comment plus the `entries:` list, and
 * it parses back to exactly the saved questions and answers, whatever their text holds. A FIFO
 * named like a question file is skipped, never read (reading it would block forever).
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readFileSync, readdirSync } from 'node:fs';
import { parseQuestionYaml, questionsDir, saveQuestion, summarizeQuestions, yamlString } from '../../server/src/io/questions.js';
import { removeWorkspace, tempWorkspace } from '../helpers/harness.js';
import { runs } from '../helpers/runs.js';

let root: string;
beforeEach(() => {
  root = tempWorkspace('co-qsummary-');
});
afterEach(() => removeWorkspace(root));

/** Strings that exercise the double-quoted renderer: newlines (folded past 40 chars), escapes, markers, unicode. */
const text = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\t', '"', '\\', '/', '#', ':', '-', '{', '}', '---', '...', '\u0000', '\u001b', '\u007f', '\u0085', '\u009f', '\u00a0', '\u2028', '\u2029', '\u202e', '\ufeff', '\ufffe', '\uffff', '\ud800', '\udfff', 'é', '😀'), maxLength: 60 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
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
      { numRuns: runs(40) },
    );
  });

  it('yamlString is a JSON string and a YAML double-quoted scalar of the same value', () => {
    fc.assert(
      fc.property(text, (s) => {
        const literal = yamlString(s);
        expect(JSON.parse(literal)).toBe(s);
        // Only characters YAML 1.2 allows raw in a stream, and no line breaks other than escaped ones.
        expect(literal).toMatch(/^[\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\u{10000}-\u{10ffff}]*$/u);
        expect(parse(`v: ${literal}\n`)).toEqual({ v: s });
      }),
      { numRuns: runs(300) },
    );
  });

  it('a saved question file reads the same as YAML and as JSON; block-style files of earlier versions still parse', async () => {
    await fc.assert(
      fc.asyncProperty(fc.record({ question: text, answer: text }), async (qa) => {
        const entry = { timestamp: '2026-01-01T00:00:00.000Z', ...qa, trace: 'elicitation-traces/x.json' };
        const file = path.join(root, await saveQuestion(root, entry));
        const saved = readFileSync(file, 'utf8');
        expect(saved.startsWith('# Saved at 2026-01-01 00:00:00 UTC\n{\n')).toBe(true);
        expect(parse(saved)).toEqual(entry);
        expect(parseQuestionYaml(saved)).toEqual(entry);
      }),
      { numRuns: runs(60) },
    );
    expect(readdirSync(questionsDir(root)).length).toBeGreaterThan(0);
    const block = '# Saved at 2026-01-01 00:00:00 UTC\ntimestamp: "2026-01-01T00:00:00.000Z"\nquestion: "Which folder?"\nanswer: |\n  src/\n  and lib/\ntrace: "t.json"\n';
    expect(parseQuestionYaml(block)).toEqual({ timestamp: '2026-01-01T00:00:00.000Z', question: 'Which folder?', answer: 'src/\nand lib/\n', trace: 't.json' });
    expect(parseQuestionYaml('# hand-edited\n{ "question": "Q", answer: A }\n')).toEqual({ question: 'Q', answer: 'A' });
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
