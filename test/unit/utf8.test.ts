/**
 * core/utf8.ts: a file's text is decoded once (analyze and buildPlan read the same bytes), and
 * buildPlan takes each section's text as a slice of it by byte offsets. A slice must be exactly
 * what decoding those bytes gives (Buffer#toString), and an offset inside a character is refused
 * (null: the caller decodes those bytes instead, U+FFFD and all).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Utf8Slicer, utf8Text } from '../../server/src/core/utf8.js';
import { parseMarkdown } from '../../server/src/core/markdown.js';
import { runs } from '../helpers/runs.js';

/** Text with ASCII, 2-, 3- and 4-byte characters, line breaks and a BOM. */
const text = fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\r', '#', 'é', 'ß', '—', '✓', '\ufeff', '😀', '𝄞'), maxLength: 80 });

/** `s`'s bytes, their slicer, and two offsets from `x` and `y` in order; `inside`: one of them cuts a character. */
function range(s: string, x: number, y: number): { bytes: Buffer; slicer: Utf8Slicer; start: number; end: number; inside: boolean } {
  const bytes = Buffer.from(s, 'utf8');
  const [start, end] = [x % (bytes.length + 1), y % (bytes.length + 1)].sort((p, q) => p - q) as [number, number];
  const cuts = (at: number) => at < bytes.length && (bytes[at]! & 0xc0) === 0x80;
  return { bytes, slicer: new Utf8Slicer(bytes), start, end, inside: cuts(start) || cuts(end) };
}

describe('Utf8Slicer', () => {
  it('a slice between character boundaries is what decoding those bytes gives; one inside a character is null', () => {
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (s, x, y) => {
        const { bytes, slicer, start, end, inside } = range(s, x, y);
        const got = slicer.slice(start, end);
        if (inside) expect(got).toBeNull();
        else expect(got).toBe(bytes.toString('utf8', start, end));
      }),
      { numRuns: runs(500) },
    );
  });

  it('counts the characters (code points) between two character boundaries, as [...text].length does', () => {
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (s, x, y) => {
        const { bytes, slicer, start, end, inside } = range(s, x, y);
        if (inside) return;
        expect(slicer.codePoints(start, end)).toBe([...bytes.toString('utf8', start, end)].length);
      }),
      { numRuns: runs(500) },
    );
    const bytes = Buffer.from('\ufeffé😀a', 'utf8');
    expect(new Utf8Slicer(bytes).codePoints(0, bytes.length)).toBe(4);
    expect(new Utf8Slicer(bytes).codePoints(3, 9)).toBe(2); // é and 😀: 6 bytes
  });

  it('every character boundary maps, across a whole text', () => {
    const bytes = Buffer.from('\ufeffab é—✓ 😀𝄞\nend', 'utf8');
    const slicer = new Utf8Slicer(bytes);
    for (let start = 0; start <= bytes.length; start++) {
      for (let end = start; end <= bytes.length; end++) {
        const got = slicer.slice(start, end);
        if (got !== null) expect(got).toBe(bytes.toString('utf8', start, end));
      }
    }
    expect(slicer.slice(0, bytes.length)).toBe(bytes.toString('utf8'));
    expect(slicer.slice(1, 4)).toBeNull(); // inside the BOM
    expect(slicer.slice(7, bytes.length)).toBeNull(); // inside é
    expect(slicer.slice(15, 23)).toBe('😀𝄞'); // two surrogate pairs
    expect(slicer.slice(23, bytes.length)).toBe('\nend');
  });
});

describe('utf8Text', () => {
  it('keeps a BOM and gives U+FFFD for invalid bytes, as Buffer#toString; parseMarkdown drops the BOM from its text only', () => {
    const bytes = Buffer.from([0xef, 0xbb, 0xbf, 0x23, 0x20, 0xff, 0x0a, 0xc3, 0xa9]);
    expect(utf8Text(bytes)).toBe(bytes.toString('utf8'));
    expect(utf8Text(bytes)).toBe(utf8Text(bytes));
    expect(parseMarkdown(bytes).text).toBe(bytes.toString('utf8').slice(1));
  });
});
