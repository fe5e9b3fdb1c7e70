/**
 * Question store: one YAML file per answered question (CONTRACT §7), written with the
 * `yaml` library and atomically. File names sort chronologically:
 * `<YYYYMMDD_HHMMSS>_<mmm><counter><random>_question.yaml`, so `limit` reads only the newest N.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Document, parse } from 'yaml';
import { QuestionEntrySchema, type QuestionEntry } from '../schemas/question.js';
import { atomicWriteFile, readRegularFileSync } from './workspace.js';
import { questionsDir, rel } from './layout.js';
import { forEachSliced } from './traces.js';

const NAME_RE = /^\d{8}_\d{6}_[0-9a-z]+_question\.yaml$/;
/** YAML parsing limits: alias bombs in a hand-edited file are refused, not expanded. */
const YAML_LIMITS = { maxAliasCount: 50 } as const;
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
    const id = `${ms}${counter.toString(36).padStart(4, '0')}${randomBytes(4).toString('hex')}`;
    const file = path.join(dir, `${stamp}_${id}_question.yaml`);
    const doc = new Document({
      timestamp: valid.timestamp,
      question: valid.question,
      answer: valid.answer,
      trace: valid.trace,
    });
    // The header is a fixed comment line; the data itself is serialised by the yaml library.
    const header = `# Saved at ${valid.timestamp.replace('T', ' ').replace(/\.\d+Z$/, '')} UTC\n`;
    const text = header + doc.toString({ defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0 });
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
  /** The YAML document (CONTRACT §7). */
  summary: string;
  count: number;
  total: number;
  entries: QuestionEntry[];
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
  const dir = questionsDir(root);
  let names: string[];
  try {
    names = (await fsp.readdir(dir)).filter((n) => n.endsWith('_question.yaml')).sort();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    names = [];
  }
  const skipped: Array<{ file: string; reason: string }> = [];
  const relName = (n: string) => rel('questions', n);
  for (const n of names) if (!NAME_RE.test(n)) skipped.push({ file: relName(n), reason: 'unexpected file name' });
  const valid = names.filter((n) => NAME_RE.test(n));
  const total = valid.length;
  // With a limit, read from the newest backwards until N good entries are found.
  const picked: Array<{ name: string; entry: QuestionEntry }> = [];
  const want = opts.limit ?? total;
  let i = valid.length;
  while (i > 0 && picked.length < want) {
    const batch = valid.slice(Math.max(0, i - (want - picked.length)), i);
    i -= batch.length;
    const read: Array<{ name: string } & EntryRead> = [];
    await forEachSliced(batch, (name) => {
      read.push({ name, ...readEntry(path.join(dir, name)) });
    });
    for (let j = read.length - 1; j >= 0 && picked.length < want; j--) {
      const r = read[j]!;
      if (r.entry) picked.push({ name: r.name, entry: r.entry });
      else skipped.push({ file: relName(r.name), reason: r.reason });
    }
  }
  picked.reverse();
  const entries = picked.map((p) => p.entry);
  const body = await renderSummaryEntries(entries.map((e) => ({ timestamp: e.timestamp, question: e.question, answer: e.answer })));
  const now = opts.now ?? new Date().toISOString();
  const header = `# Question/Answer History\n# Generated: ${now}\n# Total Q&A Pairs: ${total}\n`;
  const summary = header + body;
  skipped.sort((a, b) => a.file.localeCompare(b.file));
  return { summary, count: entries.length, total, entries, skipped };
}

const SUMMARY_YAML_OPTIONS = { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN', lineWidth: 0 } as const;
/** Entries per part when the summary document is rendered in parts. */
const RENDER_PART = 50;
const ENTRIES_KEY_LINE = 'entries:\n';

/**
 * The summary's YAML document `{entries: [...]}` as the yaml library renders it:
 * `new Document({ entries }).toString(SUMMARY_YAML_OPTIONS)`.
 *
 * Rendered in parts of RENDER_PART entries: a block sequence of maps of strings renders item by
 * item (an item's lines depend only on that entry, and items are joined by newlines), so the
 * document of all entries is `entries:` followed by the item lines of each part's document.
 * The text is the same (test/unit/question-summary-render.test.ts compares the two on random
 * entries); the time is not: one document of 10,000 entries keeps its node tree and its
 * intermediate strings alive through many garbage collections, and blocks the event loop for
 * the whole rendering. An empty or small list is rendered in one piece (`entries: []`), and a
 * part that does not start as expected falls back to rendering the whole document at once.
 */
export async function renderSummaryEntries(entries: ReadonlyArray<{ timestamp: string; question: string; answer: string }>): Promise<string> {
  const whole = () => new Document({ entries }).toString(SUMMARY_YAML_OPTIONS);
  if (entries.length <= RENDER_PART) return whole();
  const starts: number[] = [];
  for (let i = 0; i < entries.length; i += RENDER_PART) starts.push(i);
  const parts: string[] = [ENTRIES_KEY_LINE];
  let ok = true;
  await forEachSliced(starts, (i) => {
    if (!ok) return;
    const part = new Document({ entries: entries.slice(i, i + RENDER_PART) }).toString(SUMMARY_YAML_OPTIONS);
    if (part.startsWith(ENTRIES_KEY_LINE)) parts.push(part.slice(ENTRIES_KEY_LINE.length));
    else ok = false;
  });
  return ok ? parts.join('') : whole();
}

type EntryRead = { entry: QuestionEntry; reason: '' } | { entry: null; reason: string };

/**
 * Read and check one question file. Synchronous (readRegularFileSync: only a regular file
 * of at most MAX_FILE_BYTES is read, never a symlink, never a blocking FIFO); for thousands
 * of small files this is several times faster than fs.promises (callers yield to the event
 * loop between files, forEachSliced).
 */
function readEntry(file: string): EntryRead {
  try {
    const data = readRegularFileSync(file, { maxBytes: MAX_FILE_BYTES });
    if ('notRegular' in data) return { entry: null, reason: 'not a regular file' };
    if ('tooLarge' in data) return { entry: null, reason: `too large (${data.tooLarge} bytes)` };
    const text = data.toString('utf8');
    const value = parse(text, YAML_LIMITS) as unknown;
    const parsed = QuestionEntrySchema.safeParse(value);
    if (!parsed.success) return { entry: null, reason: 'not a question entry (missing or wrong fields)' };
    for (const v of Object.values(parsed.data)) flat(v);
    return { entry: parsed.data, reason: '' };
  } catch (e) {
    return { entry: null, reason: `unreadable: ${(e as Error).message.split('\n')[0]}` };
  }
}

let flatSink = 0;
/**
 * Flatten a string. yaml builds a double-quoted scalar one character at a time, which
 * V8 keeps as a rope of one ~30-byte node per character until the string is first read; kept
 * for the whole summary, 10,000 entries hold about 100 MB of ropes and most of the time goes
 * to the garbage collector. Reading a character flattens the string in place (the result goes
 * to a sink so that the read is not optimised away). Only a performance measure: strings are
 * immutable, the value is unchanged.
 */
function flat(s: string): void {
  flatSink ^= s.charCodeAt(0);
}
