/**
 * The instruction files the corpus tests run over: the vendored set in test/fixtures/corpus/
 * (real files whose licence allows a copy, plus hand-written odd shapes; see its README.md), so
 * that `npm test` passes on a clone with nothing beside it — and, when the environment variable
 * COPILOT_ONBOARDING_CORPUS names a folder, every file in that folder too (a larger corpus kept
 * outside the repository). `.tsv` files there are metadata, not instruction files.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const VENDORED_DIR = path.resolve(import.meta.dirname, '../fixtures/corpus');

/** The folder named by COPILOT_ONBOARDING_CORPUS (absolute), or undefined when unset. */
export const CORPUS_ENV_DIR: string | undefined = process.env.COPILOT_ONBOARDING_CORPUS ? path.resolve(process.env.COPILOT_ONBOARDING_CORPUS) : undefined;

if (CORPUS_ENV_DIR !== undefined && !statSync(CORPUS_ENV_DIR, { throwIfNoEntry: false })?.isDirectory()) {
  throw new Error(`COPILOT_ONBOARDING_CORPUS=${process.env.COPILOT_ONBOARDING_CORPUS} is not a folder`);
}

function instructionFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith('.tsv') && !(dir === VENDORED_DIR && e.name === 'README.md') && !e.name.startsWith('.'))
    .map((e) => e.name);
}

const where = new Map<string, string>();
for (const name of instructionFiles(VENDORED_DIR)) where.set(name, path.join(VENDORED_DIR, name));
// Same name in both: the files are copies, the outside one wins.
if (CORPUS_ENV_DIR !== undefined) for (const name of instructionFiles(CORPUS_ENV_DIR)) where.set(name, path.join(CORPUS_ENV_DIR, name));

/** Names of every corpus file (vendored and, when set, from COPILOT_ONBOARDING_CORPUS), sorted. */
export const corpusFiles: string[] = [...where.keys()].sort();

/** Absolute path of a corpus file by name. */
export function corpusPath(name: string): string {
  const p = where.get(name);
  if (p === undefined) throw new Error(`no corpus file named ${name}`);
  return p;
}

/** A metadata file of the outside corpus (e.g. `applyto-survey.tsv`), when the variable is set and it exists. */
export function outsideCorpusFile(name: string): string | undefined {
  if (CORPUS_ENV_DIR === undefined) return undefined;
  const p = path.join(CORPUS_ENV_DIR, name);
  return existsSync(p) ? p : undefined;
}
