/**
 * question_summary renders its YAML document in parts (renderSummaryEntries); the text must be
 * exactly what one yaml Document of all entries renders.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Document } from 'yaml';
import { renderSummaryEntries } from '../../server/src/io/questions.js';

const OPTIONS = { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0 } as const;
const reference = (entries: Array<{ timestamp: string; question: string; answer: string }>) => new Document({ entries }).toString(OPTIONS);

/** Strings that exercise the double-quoted renderer: newlines (folded past 40 chars), escapes, markers, unicode. */
const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 80 }),
  fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\t', '"', '\\', '#', ':', '-', '---', '...', '\r', '\u0000', '\u0085', '\u2028', 'é', '😀', '\ud800'), maxLength: 60 }),
  fc.constantFrom('', '---', '...', '- x', 'null', 'true', '123', '"', "'", 'x'.repeat(200), `${'word '.repeat(30)}\n\n${'more '.repeat(20)}\n tail`),
);
const entry = fc.record({ timestamp: text, question: text, answer: text });

describe('renderSummaryEntries', () => {
  it('renders the same text as one Document of all entries (random entries, across part boundaries)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(entry, { maxLength: 160 }), async (entries) => {
        expect(await renderSummaryEntries(entries)).toBe(reference(entries));
      }),
      { numRuns: 150 },
    );
  });

  it('renders an empty list, one entry and exactly one part as one Document does', async () => {
    const e = { timestamp: '2026-01-01T00:00:00.000Z', question: 'Q?', answer: 'A' };
    for (const n of [0, 1, 49, 50, 51, 100, 101, 1234]) {
      const entries = Array.from({ length: n }, (_, i) => ({ ...e, question: `Q${i}?\n${'x'.repeat(i % 90)}` }));
      expect(await renderSummaryEntries(entries)).toBe(reference(entries));
    }
  });
});
