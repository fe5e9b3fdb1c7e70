/**
 * Question store: one YAML file per answered question, written atomically. File names sort
 * chronologically: `<YYYYMMDD_HHMMSS>_<mmm><counter><random>q<question>_question.yaml`, so
 * `limit` reads only the newest N; `<question>` is the first 8 hex digits of the SHA-256 of the
 * question (spaces around it aside), so finding the answer to one question reads only the files
 * named for it (and those named without it by earlier versions).
 *
 * The file is a comment line and a JSON object, one field a line. JSON is YAML 1.2, so the file
 * is YAML a person can read and edit; every string is written by `yamlString`, which is both a
 * JSON string and a YAML double-quoted scalar of the same value. Reading tries `JSON.parse`
 * first (after the leading comment lines) and falls back to the `yaml` library, so hand-edited
 * files and files written in block style by earlier versions still parse. The summary is written
 * the same way: the `entries:` list in block style with `yamlString` values.
 */
import { type BigIntStats, promises as fsp, statSync } from 'node:fs';
import path from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { parse } from 'yaml';
import { QuestionEntrySchema, type QuestionEntry } from '../schemas/question.js';
import { atomicWriteFile } from './durable.js';
import { IO_CONCURRENCY, assertStateWrite, readRegularFileSync, unlessMissing } from './workspace.js';
import { questionsDir, questionsIndexFile, rel } from './layout.js';
import { workspaceId } from './state.js';
import { answerTrace } from './traces.js';
import { loadUserKey, userKeyPath } from './user-key.js';

const NAME_RE = /^\d{8}_\d{6}_[0-9a-z]+_question\.yaml$/;
/** A name that carries its question's hash (earlier versions wrote 15 characters of id and no `q<hash>`). */
const KEYED_NAME_RE = /^\d{8}_\d{6}_[0-9a-z]{15}q([0-9a-f]{8})_question\.yaml$/;

/** The question's part of a file name: the first 8 hex digits of the SHA-256 of the trimmed question. */
function questionKey(question: string): string {
  return createHash('sha256').update(question.trim()).digest('hex').slice(0, 8);
}
/** YAML parsing limits: alias bombs in a hand-edited file are refused, not expanded. */
const YAML_LIMITS = { maxAliasCount: 50 } as const;
/**
 * Characters that JSON.stringify leaves raw but YAML 1.2 does not allow raw in a stream (DEL, C1
 * controls but NEL, U+FFFE, U+FFFF), and ones readers take as line breaks or marks (NEL, U+2028,
 * U+2029, BOM). The `yaml` library reads them raw; stricter YAML readers refuse them.
 */
const YAML_RAW_UNSAFE = /[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g;

/**
 * `s` as a JSON string literal that is also a YAML 1.2 double-quoted scalar with the same value:
 * JSON's escapes (\" \\ \/ \b \f \n \r \t \uXXXX) are YAML's too, and the characters YAML does not
 * take raw are escaped as \uXXXX (JSON.stringify already escapes C0 and lone surrogates).
 */
export function yamlString(s: string): string {
  return JSON.stringify(s).replace(YAML_RAW_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Parse a question file or summary: JSON after the leading comment lines, else YAML (hand edits, older files). */
export function parseQuestionYaml(text: string): unknown {
  const body = text.replace(/^(?:#[^\n]*\n)*/, '');
  if (body.startsWith('{')) {
    try {
      return JSON.parse(body) as unknown;
    } catch {
      /* not JSON: YAML below */
    }
  }
  return parse(text, YAML_LIMITS) as unknown;
}
/** Question files larger than this are skipped as corrupted (a question is capped far below). */
const MAX_FILE_BYTES = 8 * 1024 * 1024;

let counter = 0;

export { questionsDir };

/** Save one answered question; returns the workspace-relative path. */
export async function saveQuestion(root: string, entry: QuestionEntry): Promise<string> {
  const valid = QuestionEntrySchema.parse(entry);
  const t = new Date(valid.timestamp);
  const stamp = t.toISOString().replace(/[-:]/g, '').replace('T', '_').slice(0, 15); // YYYYMMDD_HHMMSS
  const ms = String(t.getUTCMilliseconds()).padStart(3, '0');
  counter = (counter + 1) % 36 ** 4;
  const dir = questionsDir(root);
  for (;;) {
    const id = `${ms}${counter.toString(36).padStart(4, '0')}${randomBytes(4).toString('hex')}q${questionKey(valid.question)}`;
    const file = path.join(dir, `${stamp}_${id}_question.yaml`);
    const header = `# Saved at ${valid.timestamp.replace('T', ' ').replace(/\.\d+Z$/, '')} UTC\n`;
    const fields = (['timestamp', 'question', 'answer', 'trace'] as const).map((k) => `  "${k}": ${yamlString(valid[k])}`);
    const text = `${header}{\n${fields.join(',\n')}\n}\n`;
    try {
      await fsp.access(file);
      continue; // astronomically unlikely collision: pick another id
    } catch {
      /* free */
    }
    await atomicWriteFile(file, text);
    return path.relative(root, file).split(path.sep).join('/');
  }
}

export interface QuestionSummary {
  /** The YAML document: a header comment, then `entries:` with timestamp, question, answer of each. */
  summary: string;
  count: number;
  total: number;
  entries: QuestionEntry[];
  /** Workspace-relative path of each entry's file, in the same order. */
  files: string[];
  skipped: Array<{ file: string; reason: string }>;
}

/**
 * All persisted Q&A oldest first; with `limit`, the most recent N (reading only those files,
 * plus as many older ones as needed to replace corrupted files). `total` counts question files.
 */
export async function summarizeQuestions(root: string, opts: { limit?: number; now?: string } = {}): Promise<QuestionSummary> {
  if (opts.limit !== undefined && (!Number.isInteger(opts.limit) || opts.limit < 1)) {
    throw new RangeError('limit must be an integer >= 1');
  }
  const { dir, valid, skipped } = await listQuestionFiles(root);
  const total = valid.length;
  // With a limit, read from the newest backwards until N good entries are found.
  const picked: Array<{ name: string; entry: QuestionEntry }> = [];
  const want = opts.limit ?? total;
  if (want > 0) {
    for await (const r of newestFirst(dir, valid, () => want - picked.length)) {
      if (r.entry) picked.push({ name: r.name, entry: r.entry });
      else skipped.push({ file: rel('questions', r.name), reason: r.reason });
      if (picked.length >= want) break;
    }
  }
  picked.reverse();
  const entries = picked.map((p) => p.entry);
  const files = picked.map((p) => rel('questions', p.name));
  const body = entries.length
    ? `entries:\n${entries.map((e) => `  - timestamp: ${yamlString(e.timestamp)}\n    question: ${yamlString(e.question)}\n    answer: ${yamlString(e.answer)}\n`).join('')}`
    : 'entries: []\n';
  const now = opts.now ?? new Date().toISOString();
  const header = `# Question/Answer History\n# Generated: ${now}\n# Total Q&A Pairs: ${total}\n`;
  const summary = header + body;
  skipped.sort((a, b) => a.file.localeCompare(b.file));
  return { summary, count: entries.length, total, entries, files, skipped };
}

/** Saved answers ignored because no trace binds them to a person: the first few, and how many in all. */
export interface IgnoredAnswers {
  count: number;
  listed: Array<{ file: string; why: string }>;
}

const IGNORED_LISTED = 10;

/**
 * The person's newest answer to `question` that `match` accepts, with its workspace-relative
 * file and its trace, and the saved answers to it that were ignored (and why).
 *
 * Security: a question file is YAML any agent can write. An answer counts only when the
 * elicitation trace it names records the person giving exactly that answer to exactly that
 * question, sealed for this user (per-user key) in this workspace (io/traces answerTrace);
 * "newest" is the trace's order (its sealed `seq`), not the file name, so an old answer copied
 * under a newer name does not override a later one.
 *
 * Cost (issue 22): only files named for that question (questionKey), and files named without a
 * question by earlier versions, are read, newest first, and reading stops at the first file named
 * before the best answer's trace was sealed (a file is named after the answer it saves): other
 * questions' files and older files are never read. The folder is listed only when it changed
 * since the last listing (namesFor).
 */
export async function newestTracedAnswer(
  root: string,
  question: string,
  match: (e: QuestionEntry) => boolean,
): Promise<{ found: { entry: QuestionEntry; file: string; trace: string } | null; ignored: IgnoredAnswers }> {
  const { dir, valid } = await namesFor(root, questionKey(question));
  const ignored: IgnoredAnswers = { count: 0, listed: [] };
  let best: { entry: QuestionEntry; file: string; trace: string; seq: number; sealedMs: number } | null = null;
  let check: ((e: QuestionEntry) => ReturnType<typeof answerTrace>) | null = null;
  for await (const r of newestFirst(dir, valid, () => IO_CONCURRENCY)) {
    if (best && nameMs(r.name) < best.sealedMs) break;
    if (!r.entry || !match(r.entry)) continue;
    check ??= await answerChecker(root);
    const t = await check(r.entry);
    const file = rel('questions', r.name);
    if ('why' in t) { // safety: shared-answer-traced
      if (ignored.count++ < IGNORED_LISTED) ignored.listed.push({ file, why: t.why });
      continue;
    }
    if (best && t.seq <= best.seq) continue; // safety: shared-answer-newest-trace
    best = { entry: r.entry, file, trace: t.file, seq: t.seq, sealedMs: t.sealedMs };
  }
  return { found: best && { entry: best.entry, file: best.file, trace: best.trace }, ignored };
}

/**
 * A listing is kept in the index only once the questions folder has been left alone this long:
 * any later change then gives the folder another mtime, even where mtimes have 2 s steps (FAT;
 * 1 s on ext3 and HFS+), so the stamp tells the index is stale.
 */
const QUIET_MS = 2000;
const INDEX_FORMAT = 'copilot-onboarding/questions-index@1';
/** An index larger than this is not read (the folder is listed instead). */
const MAX_INDEX_BYTES = 4 * 1024 * 1024;

/** What changes when a name in the folder is added, removed or renamed (mtime and ctime), or the folder is another one (dev, ino). */
function folderStamp(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.mtimeNs}:${st.ctimeNs}`;
}

/**
 * The valid question files named for the question with key `key` (or named without a question by
 * earlier versions), oldest first. Listing a folder of 10,000 files costs more than the rest of
 * propose, so the names found are kept in `.copilot-state/questions-index.json` with the folder's
 * stamp, and used while the folder's stamp is still that one. The index is a hint about names
 * only: every file it names is read and checked like a listed one, so an edited index can leave
 * an answer out (as deleting its file does) but never make one count.
 */
async function namesFor(root: string, key: string): Promise<{ dir: string; valid: string[] }> {
  const dir = questionsDir(root);
  const keep = (n: string): boolean => {
    const k = KEYED_NAME_RE.exec(n);
    return NAME_RE.test(n) && (!k || k[1] === key);
  };
  const before = statSync(dir, { bigint: true, throwIfNoEntry: false });
  if (!before) return { dir, valid: [] };
  const stamp = folderStamp(before);
  const indexFile = questionsIndexFile(root);
  let indexed = readIndex(indexFile, key);
  if (indexed && indexed.stamp !== stamp) indexed = null; // safety: questions-index-fresh
  if (indexed) {
    let names = indexed.names;
    names = names.filter(keep); // safety: questions-index-names
    return { dir, valid: names.sort() };
  }
  const { valid } = await listQuestionFiles(root, keep);
  const after = statSync(dir, { bigint: true, throwIfNoEntry: false });
  // Kept only when nothing changed while listing, and the folder had been left alone (QUIET_MS).
  if (!after || folderStamp(after) !== stamp || Date.now() - Number(before.mtimeMs) < QUIET_MS) return { dir, valid }; // safety: questions-index-quiet
  // A cache, replaced by a rename but not fsynced: after a crash it is the old one (another stamp),
  // the new one, or unreadable, and each of those is listed again or right. When it cannot be
  // written (a read-only disk, a state folder that is a symlink), the next call lists again.
  const text = JSON.stringify({ format: INDEX_FORMAT, stamp, key, names: valid });
  const tmp = `${indexFile}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await assertStateWrite(root, indexFile);
    await fsp.writeFile(tmp, text, { flag: 'wx' });
    await fsp.rename(tmp, indexFile);
  } catch {
    await fsp.rm(tmp, { force: true }).catch(() => undefined);
  }
  return { dir, valid };
}

/** The index's stamp and names when it is one for `key`, else null. */
function readIndex(file: string, key: string): { stamp: string; names: string[] } | null {
  try {
    const data = readRegularFileSync(file, { maxBytes: MAX_INDEX_BYTES });
    if (!Buffer.isBuffer(data)) return null;
    const v = JSON.parse(data.toString('utf8')) as Record<string, unknown> | null;
    if (v?.format !== INDEX_FORMAT || v.key !== key || typeof v.stamp !== 'string' || !Array.isArray(v.names)) return null;
    return { stamp: v.stamp, names: v.names.filter((n): n is string => typeof n === 'string') };
  } catch {
    return null; // missing or corrupt: list the folder
  }
}

/** answerTrace with this user's key and this workspace's id, or a function saying why no answer can be checked. */
async function answerChecker(root: string): Promise<(e: QuestionEntry) => ReturnType<typeof answerTrace>> {
  let why: string;
  try {
    const key = await loadUserKey();
    if (key) {
      const workspace = await workspaceId(root);
      return (e) => answerTrace(root, e, key, workspace);
    }
    why = `the per-user trace key ${userKeyPath()} is missing, so no answer can be checked`;
  } catch (e) {
    why = `no answer can be checked: ${(e as Error).message}`;
  }
  return () => Promise.resolve({ why });
}

/** The time a question file was saved, from its name (`YYYYMMDD_HHMMSS_mmm…`), in ms. */
function nameMs(name: string): number {
  const m = /^(\d{4})(\d\d)(\d\d)_(\d\d)(\d\d)(\d\d)_(\d{3})/.exec(name);
  return m ? Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!, +m[7]!) : -Infinity;
}

/** The question files that `keep` accepts, sorted oldest first (names sort by time), and the ones with an unexpected name. */
async function listQuestionFiles(root: string, keep: (name: string) => boolean = () => true): Promise<{ dir: string; valid: string[]; skipped: Array<{ file: string; reason: string }> }> {
  const dir = questionsDir(root);
  const names = ((await unlessMissing(() => fsp.readdir(dir))) ?? []).filter((n) => n.endsWith('_question.yaml') && keep(n)).sort();
  const skipped = names.filter((n) => !NAME_RE.test(n)).map((n) => ({ file: rel('questions', n), reason: 'unexpected file name' }));
  return { dir, valid: names.filter((n) => NAME_RE.test(n)), skipped };
}

/** Files read between two turns of the event loop. */
const READ_BATCH = 64;

/**
 * Each file of `names` (oldest first) read and checked, newest first; `batch()` says how many to
 * read next (at most READ_BATCH). Files are read synchronously, with no thread-pool round trips,
 * and the event loop gets a turn between batches. Stopping the loop stops the reading.
 */
async function* newestFirst(dir: string, names: readonly string[], batch: () => number): AsyncGenerator<{ name: string } & EntryRead> {
  let i = names.length;
  while (i > 0) {
    if (i < names.length) await new Promise((resolve) => setImmediate(resolve));
    const end = i;
    i = Math.max(0, i - Math.min(READ_BATCH, Math.max(1, batch())));
    const read = names.slice(i, end).map((name) => ({ name, ...readEntry(path.join(dir, name)) }));
    for (let j = read.length - 1; j >= 0; j--) yield read[j]!;
  }
}

type EntryRead = { entry: QuestionEntry; reason: '' } | { entry: null; reason: string };

/**
 * Read and check one question file.
 * Security: only a regular file of at most MAX_FILE_BYTES is read, never a symlink, never a
 * FIFO (which would block forever).
 */
function readEntry(file: string): EntryRead {
  try {
    const data = readRegularFileSync(file, { maxBytes: MAX_FILE_BYTES });
    if ('notRegular' in data) return { entry: null, reason: 'not a regular file' };
    if ('tooLarge' in data) return { entry: null, reason: `too large (${data.tooLarge} bytes)` };
    const value = parseQuestionYaml(data.toString('utf8'));
    const parsed = QuestionEntrySchema.safeParse(value);
    if (!parsed.success) return { entry: null, reason: 'not a question entry (missing or wrong fields)' };
    return { entry: parsed.data, reason: '' };
  } catch (e) {
    return { entry: null, reason: `unreadable: ${(e as Error).message.split('\n')[0]}` };
  }
}
