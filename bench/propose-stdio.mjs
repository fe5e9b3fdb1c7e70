/**
 * `propose over stdio, 1 MB` and `4 MB`: the built server (`dist/index.js serve`) spawned as a
 * client would, a real SDK Client over stdio, onboarding_propose (narrate: false) on a synthetic
 * monolith, median of several calls on one session. Measures what a person waits for, including
 * serialising and parsing the result, which is why results are bounded. Side by side, in the same
 * run: the same propose in this process (app/recover + app/propose of the build, on the same
 * workspace), so the ratio is the cost of the server, the transport and the result.
 *
 *   npm run build && node bench/propose-stdio.mjs [--runs 7]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DIST, argValue, cleanupTemp, interleave, isMain, kib, load, ms, tempDir, textTable } from './lib.mjs';
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
    const { propose } = await load('app/propose.js');
    const { recover } = await load('app/recover.js');
    let size = 0;
    // The first call of each warms its process up.
    const r = await interleave(
      {
        stdio: {
          fn: async () => {
            const res = await client.callTool({ name: 'onboarding_propose', arguments: { narrate: false } }, undefined, { timeout: 120_000 });
            if (res.isError) throw new Error(`propose failed: ${JSON.stringify(res.content)}`);
            size = Buffer.byteLength(JSON.stringify(res));
          },
        },
        inProcess: {
          fn: async () => {
            await recover(ws);
            await propose(ws, undefined);
          },
        },
      },
      { runs, warmup: 1 },
    );
    await client.close();
    rows.push({ name: `propose over stdio, ${bytes >> 20} MB`, median: r.stdio.wall, inProcess: r.inProcess.wall, result: size });
  }
  return rows;
}

if (isMain(import.meta.url)) {
  const runs = Number(argValue(process.argv, '--runs', '7'));
  const rows = await run({ runs });
  console.log(textTable(['case', 'median ms', 'in process ms', 'ratio', 'result size'], rows.map((r) => [r.name, ms(r.median), ms(r.inProcess), `${(r.median / r.inProcess).toFixed(2)}×`, kib(r.result)])));
  if (rows.length === 2) console.log(`4 MB / 1 MB: ${(rows[1].median / rows[0].median).toFixed(2)}x`);
  cleanupTemp();
}
