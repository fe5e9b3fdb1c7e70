/**
 * renderFrontMatter writes the documented shape (applyTo as one double-quoted string) with the
 * yaml library, and what it writes reads back as the same values, whatever the text holds.
 * frontMatterBlock finds the block every reader of front matter uses (Copilot, Cursor, Windsurf).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { frontMatterBlock, readFrontMatter, renderFrontMatter } from '../../server/src/core/copilot-format.js';
import { runs } from '../helpers/runs.js';

describe('renderFrontMatter', () => {
  it('writes applyTo and description as double-quoted strings, fenced, in the eol asked for', () => {
    expect(renderFrontMatter({ applyTo: '**/*.ts,**/*.tsx', description: 'TypeScript rules' })).toBe('---\napplyTo: "**/*.ts,**/*.tsx"\ndescription: "TypeScript rules"\n---\n');
    expect(renderFrontMatter({ applyTo: 'src/**', description: 'say "hi"\\now' }, '\r\n')).toBe('---\r\napplyTo: "src/**"\r\ndescription: "say \\"hi\\"\\\\now"\r\n---\r\n');
    expect(renderFrontMatter({ applyTo: '*.md', description: '' }, '\r')).toBe('---\rapplyTo: "*.md"\rdescription: ""\r---\r');
  });

  it('writes excludeAgent after the description when given, and reads it back leniently', () => {
    expect(renderFrontMatter({ applyTo: 'src/**', description: 'Src', excludeAgent: 'code-review' })).toBe('---\napplyTo: "src/**"\ndescription: "Src"\nexcludeAgent: "code-review"\n---\n');
    expect(renderFrontMatter({ applyTo: 'src/**', description: 'Src', excludeAgent: undefined })).not.toContain('excludeAgent');
    const read = (fm: string) => readFrontMatter(`---\napplyTo: "src/**"\n${fm}\n---\nbody\n`).excludeAgent;
    expect(read('excludeAgent: "coding-agent"')).toBe('coding-agent');
    expect(read("excludeAgent: 'code-review'")).toBe('code-review');
    expect(read('excludeAgent: code-review')).toBe('code-review');
    expect(read('excludeAgent: ["coding-agent"]')).toBe('coding-agent');
    expect(read('excludeAgent:\n  - code-review')).toBe('code-review');
    expect(read('description: x')).toBeNull();
    // Broken YAML elsewhere in the block: the line is still read.
    expect(read('excludeAgent: code-review\ndescription: [unclosed')).toBe('code-review');
  });

  // CR-only front matter is written as asked but yaml does not read a lone CR as a line break.
  it('reads back as the same applyTo and description (random text, LF and CRLF)', () => {
    const glob = fc.oneof(fc.constantFrom('**/*.ts,**/*.tsx', 'src/**', '*alias', '"quoted"', "it's", 'a\\b', 'é😀', '# not a comment', 'x: y'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }));
    const text = fc.oneof(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\t', '"', '\\', '#', ':', '-', '---', 'é'), maxLength: 60 }));
    fc.assert(
      fc.property(glob, text, fc.constantFrom<'\n' | '\r\n'>('\n', '\r\n'), (applyTo, description, eol) => {
        const fm = readFrontMatter(`${renderFrontMatter({ applyTo, description }, eol)}# Body${eol}`);
        expect(fm).toMatchObject({ present: true, applyTo, applyToShape: 'quoted-string', description, errors: [] });
      }),
      { numRuns: runs(500) },
    );
  });
});

describe('frontMatterBlock', () => {
  const block = (text: string) => {
    const bytes = new TextEncoder().encode(text);
    const b = frontMatterBlock(bytes);
    return { ...b, rest: Buffer.from(bytes).subarray(b.end).toString() };
  };

  it('ends after the first closing fence, in bytes, BOM and any line ending included', () => {
    expect(block('\uFEFF---\r\napplyTo: "é/**"\r\n---\r\n# Body\r\n')).toEqual({ bom: 3, end: 31, body: 'applyTo: "é/**"', rest: '# Body\r\n' });
    expect(block('---\rglobs: a\r---\rbody')).toMatchObject({ body: 'globs: a', rest: 'body' });
    expect(block('---\na: 1\n---\nb: 2\n---\n')).toMatchObject({ body: 'a: 1', rest: 'b: 2\n---\n' });
    expect(block('---\na: 1\n---')).toMatchObject({ body: 'a: 1', rest: '' });
  });

  it('reads an empty block as empty, and never takes a later fence for its end', () => {
    expect(block('---\n---\n# A\n---\nx\n---\n')).toMatchObject({ body: '', rest: '# A\n---\nx\n---\n' });
    expect(readFrontMatter('---\n---\n# A\n')).toMatchObject({ present: true, applyTo: null, applyToShape: 'missing', length: 8 });
  });

  it('finds no block without a first-line fence or a closing one', () => {
    expect(block('\uFEFF# Title\n---\n')).toEqual({ bom: 3, end: 3, body: null, rest: '# Title\n---\n' });
    expect(block('---\nglobs: a\n')).toMatchObject({ end: 0, body: null });
    expect(block('--- x\na\n---\n')).toMatchObject({ end: 0, body: null });
    expect(block('----\na\n---\n')).toMatchObject({ end: 0, body: null });
  });
});
