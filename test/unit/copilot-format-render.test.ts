/**
 * renderFrontMatter (yaml's scalar stringifier per value, rendered applyTo values cached) must
 * equal the straightforward rendering: yaml's stringify of the mapping under the same options,
 * split into lines and fenced, whatever was rendered before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { renderFrontMatter } from '../../server/src/core/copilot-format.js';

function reference(fm: { applyTo: string; description: string }, eol: '\n' | '\r\n' | '\r'): string {
  const y = stringify({ applyTo: fm.applyTo, description: fm.description }, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0 });
  return ['---', ...y.replace(/\n$/, '').split('\n'), '---', ''].join(eol);
}

describe('renderFrontMatter', () => {
  it('equals yaml stringify of { applyTo, description }, also for applyTo values rendered before', () => {
    const glob = fc.oneof(fc.constantFrom('**/*.ts,**/*.tsx', 'src/**', '**/*.py', '"quoted"', "it's", 'a\\b', 'é😀', ''), fc.string({ unit: 'binary', maxLength: 40 }));
    const fm = fc.record({ applyTo: glob, description: fc.string({ unit: 'binary', maxLength: 40 }) });
    fc.assert(
      fc.property(fc.array(fm, { minLength: 1, maxLength: 8 }), fc.constantFrom<'\n' | '\r\n' | '\r'>('\n', '\r\n', '\r'), (list, eol) => {
        for (const f of [...list, ...list]) expect(renderFrontMatter(f, eol)).toBe(reference(f, eol));
      }),
      { numRuns: 300 },
    );
  });
});
