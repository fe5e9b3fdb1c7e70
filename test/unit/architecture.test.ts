/**
 * The layering of server/src, checked on every import (static, dynamic and `export … from`),
 * read with TypeScript's own import scanner:
 * - core/ is pure: no file system, archive, SDK or path module, and nothing from the layers
 *   that do side effects or talk to a channel (io/, app/, mcp/, cli/, runtime/);
 * - io/ (every side effect) knows nothing of the channels (mcp/, cli/);
 * - app/ (use cases shared by MCP and CLI) imports no SDK and no channel;
 * - only io/ imports an fs module: runtime/, app/, mcp/ and cli/ read and write every file
 *   through io/ (core/ imports none either, see above);
 * - runtime/ (config, log) imports nothing from io/, app/, mcp/ or cli/: io/ uses it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../server/src');

interface Import {
  file: string; // relative to server/src, posix
  spec: string; // as written
  layer: string | undefined; // top folder of a relative import inside server/src ('' for a top-level module)
}

function importsOf(folder: string): Import[] {
  const out: Import[] = [];
  for (const rel of readdirSync(path.join(SRC, folder), { recursive: true, encoding: 'utf8' })) {
    if (!rel.endsWith('.ts')) continue;
    const file = path.posix.join(folder, rel.split(path.sep).join('/'));
    const info = ts.preProcessFile(readFileSync(path.join(SRC, file), 'utf8'), true, true);
    for (const { fileName: spec } of info.importedFiles) {
      let layer: string | undefined;
      if (spec.startsWith('.')) {
        const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
        layer = target.includes('/') ? target.split('/')[0] : '';
      }
      out.push({ file, spec, layer });
    }
  }
  return out;
}

const show = (xs: Import[]): string[] => xs.map((x) => `${x.file} -> ${x.spec}`).sort();

const FS = /^(node:)?fs(\/promises)?$|^fs-extra(\/.*)?$/;
const PATH = /^(node:)?path(\/(posix|win32))?$/;
const TAR = /^tar(\/.*)?$/;
const SDK = /^@modelcontextprotocol\/sdk(\/.*)?$/;

describe('architecture: who may import what in server/src', () => {
  it('finds the layers and their imports', () => {
    for (const folder of ['core', 'io', 'app', 'runtime', 'mcp', 'cli']) expect(importsOf(folder).length).toBeGreaterThan(0);
  });

  it('core/ imports no fs, tar, SDK or path module', () => {
    expect(show(importsOf('core').filter((x) => FS.test(x.spec) || PATH.test(x.spec) || TAR.test(x.spec) || SDK.test(x.spec)))).toEqual([]);
  });

  it('core/ imports nothing from io/, app/, mcp/, cli/ or runtime/', () => {
    expect(show(importsOf('core').filter((x) => ['io', 'app', 'mcp', 'cli', 'runtime'].includes(x.layer ?? '-')))).toEqual([]);
  });

  it('io/ imports nothing from mcp/ or cli/', () => {
    expect(show(importsOf('io').filter((x) => x.layer === 'mcp' || x.layer === 'cli'))).toEqual([]);
  });

  it('app/ imports no SDK, and nothing from mcp/ or cli/', () => {
    expect(show(importsOf('app').filter((x) => SDK.test(x.spec) || x.layer === 'mcp' || x.layer === 'cli'))).toEqual([]);
  });

  it('runtime/, app/, mcp/ and cli/ import no fs module: their file I/O is in io/', () => {
    expect(show(['runtime', 'app', 'mcp', 'cli'].flatMap(importsOf).filter((x) => FS.test(x.spec)))).toEqual([]);
  });

  it('runtime/ imports nothing from io/, app/, mcp/ or cli/', () => {
    expect(show(importsOf('runtime').filter((x) => ['io', 'app', 'mcp', 'cli'].includes(x.layer ?? '-')))).toEqual([]);
  });

  it('the checks see every kind of import', () => {
    const info = ts.preProcessFile("import a from 'node:fs';\nimport {\n  b,\n} from '../mcp/x.js';\nexport * from 'tar';\nconst c = await import('node:path');\nimport type { D } from '@modelcontextprotocol/sdk/types.js';\n", true, true);
    expect(info.importedFiles.map((f) => f.fileName)).toEqual(['node:fs', '../mcp/x.js', 'tar', 'node:path', '@modelcontextprotocol/sdk/types.js']);
  });
});
