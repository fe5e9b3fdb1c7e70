/**
 * `propose over stdio, 1 MB` and `4 MB`: the built server (`dist/index.js serve`) spawned as a
 * client would, a real SDK Client over stdio, onboarding_propose (narrate: false) on a synthetic
 * monolith, median of several calls on one session. Measures what a person waits for, including
 * serialising and parsing the result, which is why results are bounded.
 *
 *   npm run build && node bench/propose-stdio.mjs [--runs 7]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DIST, argValue, cleanupTemp, isMain, kib, median, ms, tempDir, textTable } from './lib.mjs';
import { makeSyntheticMonolith } from './synthetic.mjs';

export async function run({ runs = 7, sizes = [1 << 20, 4 << 20] } = {}) {
  const rows = [];
  for (const bytes of sizes) {
    const ws = tempDir('co-bench-stdio-');
    mkdirSync(path.join(ws, '.github'), { recursive: true });
    writeFileSync(path.join(ws, '.github', 'copilot-instructions.md'), makeSyntheticMonolith(bytes, 42));
    mkdirSync(path.join(ws, 'src'), { recursive: true });
    writeFileSync(path.join(ws, 'src', 'index.ts'), '// x\n');
    const transport = new StdioClientTransport({ command: process.execPath, args: [path.join(DIST, 'index.js'), 'serve', '--workspace', ws], stderr: 'ignore' });
    const client = new Client({ name: 'bench', version: '0' }, { capabilities: {} });
    await client.connect(transport);
    const times = [];
    let size = 0;
    for (let i = 0; i < runs + 1; i++) {
      const t0 = performance.now();
      const r = await client.callTool({ name: 'onboarding_propose', arguments: { narrate: false } }, undefined, { timeout: 120_000 });
      const dt = performance.now() - t0;
      size = Buffer.byteLength(JSON.stringify(r));
      if (i > 0) times.push(dt); // the first call warms the process up
    }
    await client.close();
    rows.push({ name: `propose over stdio, ${bytes >> 20} MB`, median: median(times), result: size });
  }
  return rows;
}

if (isMain(import.meta.url)) {
  const runs = Number(argValue(process.argv, '--runs', '7'));
  const rows = await run({ runs });
  console.log(textTable(['case', 'median ms', 'result size'], rows.map((r) => [r.name, ms(r.median), kib(r.result)])));
  if (rows.length === 2) console.log(`4 MB / 1 MB: ${(rows[1].median / rows[0].median).toFixed(2)}x`);
  cleanupTemp();
}
