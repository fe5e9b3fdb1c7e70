/**
 * Trace chains: one JSON file per elicitation (or sampling call), linked by seq and hashes
 * so that a modified, missing, inserted or reordered trace is detectable. Canonical JSON is
 * RFC 8785 (JCS), so an auditor can recompute every link with any JCS implementation:
 *
 * sha256      = sha256(canonicalJson(record without `sha256`))
 * prev_sha256 = sha256(canonicalJson(previous record, whole)) — null for seq 1
 *
 * Appends are serialised across processes with a lock file. A small head file records the
 * last link; it is written with a `pending` marker before the trace file, so a crash between
 * the two leaves a state the next append repairs. The head also lets verify notice a
 * deleted tail.
 *
 * Security: the store seals what only it knows (format @2): the record's own file name, the
 * time it sealed it, and, in the elicitation chain, the workspace id and an approval's
 * `expires_at`. Once a chain has traces its head is mandatory: a missing or corrupt head is a
 * broken chain, never rebuilt from the files. Each append also records the last link in
 * onboarding.json, and both verify and append cross-check it, so deleting the head with the
 * newest traces, or wiping the folder, does not quietly restart the chain.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { canonicalJson, sha256Hex } from '../core/canonical.js';
import { approvalExpiry } from '../core/approval.js';
import { ElicitationTraceSchema, SamplingTraceSchema, type ElicitationTrace, type SamplingTrace } from '../schemas/trace.js';
import { atomicWriteFile, createExclusive } from './durable.js';
import { IO_CONCURRENCY, mapLimit, readRegularFile, unlessMissing } from './workspace.js';
import { traceDir, traceDirName, type ChainKind } from './layout.js';
import { withFileLock } from './lock.js';
import { recordChainMark, recordedChainMark, workspaceId } from './state.js';
import { DEFAULT_CONFIG } from '../runtime/config.js';
import type { ChainMark } from '../schemas/state.js';
import { CLOCK_SKEW_MS, TRACE_FORMAT, sealProblem, type ChainProblemKind, type TraceStoreOptions } from './trace-seal.js';

export {   traceDir, traceDirName, type ChainKind,  type TraceStoreOptions };

interface Head {
  seq: number;
  sha256: string | null; // whole-record hash of the last trace (its prev for the next)
  file: string | null;
  pending?: { seq: number; file: string } | undefined;
}

export type TraceRecord<K extends ChainKind> = K extends 'elicitation' ? ElicitationTrace : SamplingTrace;
type Unsealed<T> = Omit<T, 'seq' | 'prev_sha256' | 'sha256' | 'file' | 'sealed_at' | 'workspace' | 'expires_at'>;

/** `2026-11-22T10:30:45.123Z` -> `2026-11-22T10-30-45-123Z` */
function fileTime(iso: string): string {
  return iso.replace(/[:.]/g, '-');
}

export function recordHash(recordWithoutSha: Record<string, unknown>): string {
  const { sha256: _ignored, ...rest } = recordWithoutSha;
  return sha256Hex(canonicalJson(rest));
}

export function wholeHash(record: Record<string, unknown>): string {
  return sha256Hex(canonicalJson(record));
}

function schemaFor(kind: ChainKind) {
  return kind === 'elicitation' ? ElicitationTraceSchema : SamplingTraceSchema;
}

/** Append-only store of one chain. */
export class TraceStore<K extends ChainKind> {
  readonly dir: string;
  constructor(
    readonly root: string,
    readonly kind: K,
    private readonly opts: TraceStoreOptions = {},
  ) {
    this.dir = traceDir(root, kind);
  }

  private get headPath(): string {
    return path.join(this.dir, '.head.json');
  }

  /** Seal and write a trace (`label`: the file-name suffix). Throws if it cannot be written: callers fail closed. */
  async append(unsealed: Unsealed<TraceRecord<K>>, label: string): Promise<{ record: TraceRecord<K>; file: string }> {
    await fsp.mkdir(this.dir, { recursive: true });
    return withFileLock(path.join(this.dir, '.lock'), async () => {
      const head = await this.readHead();
      const seq = head.seq + 1;
      const base = `${fileTime(String((unsealed as { timestamp: string }).timestamp))}-${safeLabel(label)}`;
      const file = await this.freeName(base);
      const body = { ...(unsealed as object), ...(await this.stamp(unsealed as Record<string, unknown>, file)), seq, prev_sha256: head.sha256 } as Record<string, unknown>;
      const record = { ...body, sha256: recordHash(body) } as unknown as TraceRecord<K>;
      // Validate before writing: never publish a record the verifier would reject.
      schemaFor(this.kind).parse(record);
      const problem = sealProblem(this.kind, file, record as unknown as Record<string, unknown>);
      if (problem) throw new Error(problem.message);
      await atomicWriteFile(this.headPath, JSON.stringify({ ...head, pending: { seq, file } }));
      await writeNew(path.join(this.dir, file), JSON.stringify(record, null, 2) + '\n');
      const mark: ChainMark = { seq, sha256: wholeHash(record as unknown as Record<string, unknown>), file };
      await atomicWriteFile(this.headPath, JSON.stringify(mark satisfies Head));
      await recordChainMark(this.root, this.kind, mark);
      return { record, file };
    });
  }

  /** The fields only the store can vouch for (format @2). */
  private async stamp(unsealed: Record<string, unknown>, file: string): Promise<Record<string, unknown>> {
    const out: Record<string, unknown> = { format: TRACE_FORMAT[this.kind], file, sealed_at: new Date((this.opts.now ?? Date.now)()).toISOString() };
    if (this.kind === 'elicitation') {
      out.workspace = await workspaceId(this.root);
      if (unsealed.action === 'approve' && unsealed.outcome === 'approved') {
        out.expires_at = approvalExpiry(String(unsealed.timestamp), this.opts.approvalTtlMs ?? DEFAULT_CONFIG.approvalTtlMs);
      }
    }
    return out;
  }

  private async freeName(base: string): Promise<string> {
    for (let i = 1; ; i++) {
      const name = i === 1 ? `${base}.json` : `${base}-${i}.json`;
      try {
        await fsp.access(path.join(this.dir, name));
      } catch {
        return name;
      }
    }
  }

  /**
   * The chain's last link. Security: never rebuilt from the files: with traces on disk, a missing
   * or corrupt head is a broken chain, and so is an empty folder (or a head behind it) when
   * onboarding.json recorded a later link.
   */
  private async readHead(): Promise<Head> {
    const text = await readText(this.headPath);
    let head = text === null ? null : parseHead(text);
    if (!head) {
      if (text !== null) throw new Error(`${traceDirName(this.kind)}/.head.json is corrupt: the chain is broken (run \`copilot-onboarding traces verify\`)`);
      if ((await listTraceFiles(this.dir)).length) throw new Error(`${traceDirName(this.kind)}/.head.json is missing: the chain is broken (run \`copilot-onboarding traces verify\`)`);
      head = { seq: 0, sha256: null, file: null };
    }
    if (head.pending) {
      // A crash between writing the trace and the head: adopt the trace if it is the next link.
      const rec = await readJson(path.join(this.dir, head.pending.file));
      const hashes = rec && linkHashes(rec);
      if (rec && hashes && rec.seq === head.pending.seq && rec.prev_sha256 === head.sha256 && hashes.record === rec.sha256) {
        head = { seq: head.pending.seq, sha256: hashes.whole, file: head.pending.file };
      } else {
        head = { seq: head.seq, sha256: head.sha256, file: head.file };
      }
    }
    const mark = await recordedChainMark(this.root, this.kind);
    if (mark && mark.seq > head.seq) {
      throw new Error(`onboarding.json records seq ${mark.seq} of ${traceDirName(this.kind)}/ but its head is at seq ${head.seq}: the chain is broken (run \`copilot-onboarding traces verify\`)`);
    }
    return head;
  }

  /** Every trace file, parsed, sorted by seq (unparseable files are returned with an error). */
  async list(): Promise<Array<{ file: string; record: TraceRecord<K> | null; error: string | null }>> {
    const entries = await listTraceFiles(this.dir);
    const schema = schemaFor(this.kind);
    const out = await mapLimit(entries, IO_CONCURRENCY, async (file) => {
      const raw = await readJson(path.join(this.dir, file));
      const parsed = schema.safeParse(raw);
      return parsed.success
        ? { file, record: parsed.data as TraceRecord<K>, error: null }
        : { file, record: null, error: raw ? 'does not match the trace schema' : 'not valid JSON' };
    });
    return out.sort((a, b) => (a.record?.seq ?? Infinity) - (b.record?.seq ?? Infinity) || a.file.localeCompare(b.file));
  }

  /** Read one trace by file name or seq. */
  async get(fileOrSeq: string | number): Promise<{ file: string; record: TraceRecord<K> } | null> {
    if (typeof fileOrSeq === 'string' && !/^\d+$/.test(fileOrSeq)) {
      const name = path.basename(fileOrSeq);
      const raw = await readJson(path.join(this.dir, name));
      const parsed = schemaFor(this.kind).safeParse(raw);
      // A record sealed under another name was renamed: it is not the trace this name referred to.
      return parsed.success && (parsed.data.file === undefined || parsed.data.file === name) ? { file: name, record: parsed.data as TraceRecord<K> } : null;
    }
    const seq = Number(fileOrSeq);
    const all = await this.list();
    const hit = all.find((t) => t.record?.seq === seq);
    return hit?.record ? { file: hit.file, record: hit.record } : null;
  }

  async verify(): Promise<VerifyReport> {
    return verifyChain(this.root, this.kind, { now: (this.opts.now ?? Date.now)() });
  }
}

interface ChainProblem {
  kind: ChainProblemKind;
  file: string | null;
  seq: number | null;
  message: string;
}

export interface VerifyReport {
  chain: ChainKind;
  dir: string;
  ok: boolean;
  count: number;
  lastSeq: number;
  problems: ChainProblem[];
}

/**
 * Walk a chain and report exactly which file breaks it.
 *
 * The head file is read before and after the trace files; if an append ran in between (the
 * head changed), the walk is repeated (after three tries, holding the append lock), so a
 * verify that races a live server does not report a half-written append as a broken chain.
 * `now` (default: the system clock) bounds the sealed times of @2 records.
 */
export async function verifyChain(root: string, kind: ChainKind, opts: { now?: number } = {}): Promise<VerifyReport> {
  const dir = traceDir(root, kind);
  const headPath = path.join(dir, '.head.json');
  const now = opts.now ?? Date.now();
  const walk = async (): Promise<{ report: VerifyReport; settled: boolean }> => {
    const before = await readText(headPath);
    let mark: ChainMark | Error | null;
    try {
      mark = await recordedChainMark(root, kind);
    } catch (e) {
      mark = e instanceof Error ? e : new Error(String(e));
    }
    const report = await verifyOnce(dir, kind, before, mark, now);
    return { report, settled: (await readText(headPath)) === before };
  };
  let last: VerifyReport | null = null;
  for (let attempt = 0; attempt < 3; attempt++) {
    const { report, settled } = await walk();
    if (settled) return report;
    last = report;
  }
  // Appends keep landing while we read: walk once more holding the append lock. A folder we
  // cannot write to (an auditor's read-only copy) has no live writer; the last walk stands.
  try {
    return await withFileLock(path.join(dir, '.lock'), async () => (await walk()).report);
  } catch (e) {
    if (['EACCES', 'EPERM', 'EROFS', 'ENOENT'].includes((e as NodeJS.ErrnoException).code ?? '')) return last!;
    throw e;
  }
}

async function verifyOnce(dir: string, kind: ChainKind, headText: string | null, mark: ChainMark | Error | null, now: number): Promise<VerifyReport> {
  const head = headText === null ? null : parseHead(headText);
  let files: string[];
  try {
    files = await listTraceFiles(dir);
  } catch (e) {
    const problem: ChainProblem = { kind: 'unparseable', file: null, seq: null, message: `${traceDirName(kind)}/ cannot be read as a folder (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` };
    return { chain: kind, dir, ok: false, count: 0, lastSeq: 0, problems: [problem] };
  }
  const problems: ChainProblem[] = [];
  const schema = schemaFor(kind);
  // Only the links of a good trace are kept (not the parsed record), so records die young.
  type Good = { file: string; prev: string | null; seq: number; whole: string; v2: boolean; sealed: number; started: number };
  const all: Good[] = [];
  const check = (file: string, read: string | Error): ChainProblem | Good => {
    let rec: Record<string, unknown> | null = null;
    try {
      rec = typeof read === 'string' ? (JSON.parse(read) as Record<string, unknown>) : null;
    } catch {
      read = new Error('not valid JSON');
    }
    if (!rec) return { kind: 'unparseable', file, seq: null, message: `${file}: ${typeof read === 'string' ? null : read.message}` };
    const parsed = schema.safeParse(rec);
    if (!parsed.success) {
      return { kind: 'unparseable', file, seq: typeof rec.seq === 'number' ? rec.seq : null, message: `${file}: does not match the ${kind} trace schema` };
    }
    const hashes = linkHashes(rec);
    if (!hashes || hashes.record !== rec.sha256) {
      return { kind: 'modified', file, seq: rec.seq as number, message: `${file}: content does not match its sha256 (modified after it was written)` };
    }
    const sealed = sealProblem(kind, file, rec);
    if (sealed) return { ...sealed, file, seq: rec.seq as number };
    const v2 = String(rec.format).endsWith('@2');
    return { file, prev: rec.prev_sha256 as string | null, seq: rec.seq as number, whole: hashes.whole, v2, sealed: v2 ? Date.parse(String(rec.sealed_at)) : NaN, started: Date.parse(String(rec.timestamp)) };
  };
  // Each file is checked as soon as it is read (the checks interleave with the reads, so the
  // event loop is never held for the whole chain); problems are reported in name order.
  const checked = await mapLimit(files, IO_CONCURRENCY, async (name) => check(name, await readTraceText(path.join(dir, name))));
  for (const c of checked) 'kind' in c ? problems.push(c) : all.push(c);
  all.sort((a, b) => a.seq - b.seq || a.file.localeCompare(b.file));
  const byWhole = new Map(all.map((g) => [g.whole, g]));

  // Two traces with one seq: keep the one the chain vouches for (its successor links to it,
  // or the head recorded it) and report the other as inserted.
  const linkedTo = new Set(all.map((g) => g.prev).filter((x): x is string => typeof x === 'string'));
  const good: Good[] = [];
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j < all.length && all[j]!.seq === all[i]!.seq) j++;
    const group = all.slice(i, j);
    let keep = group[0]!;
    if (group.length > 1) {
      const vouched = group.find((g) => linkedTo.has(g.whole) || (head?.sha256 === g.whole && head.seq === g.seq) || (head?.pending?.file === g.file && head.pending.seq === g.seq));
      if (vouched) keep = vouched;
      for (const g of group) {
        if (g !== keep) problems.push({ kind: 'inserted', file: g.file, seq: g.seq, message: `${g.file}: a second trace with seq ${g.seq} (inserted)` });
      }
    }
    good.push(keep);
    i = j;
  }

  let expectedSeq = 1;
  let prevWhole: string | null = null;
  let prevV2: Good | null = null;
  for (const g of good) {
    // Sealed times: never ahead of the verifier's clock (beyond the skew), never before the
    // previous @2 record's; a question is put before its answer is sealed; no @1 after an @2.
    const at = (ms: number) => new Date(ms).toISOString();
    if (prevV2 && !g.v2) {
      problems.push({ kind: 'forged', file: g.file, seq: g.seq, message: `${g.file}: an old-format (@1) trace after a @2 trace (downgraded or inserted)` });
    } else if (g.v2 && g.sealed > now + CLOCK_SKEW_MS) {
      problems.push({ kind: 'dated', file: g.file, seq: g.seq, message: `${g.file}: sealed at ${at(g.sealed)}, after now (${at(now)}) (dated in the future)` });
    } else if (g.v2 && prevV2 && g.sealed < prevV2.sealed) {
      problems.push({ kind: 'dated', file: g.file, seq: g.seq, message: `${g.file}: sealed at ${at(g.sealed)}, before its predecessor (seq ${prevV2.seq}, ${at(prevV2.sealed)})` });
    } else if (g.v2 && g.started > g.sealed + CLOCK_SKEW_MS) {
      problems.push({ kind: 'dated', file: g.file, seq: g.seq, message: `${g.file}: dated ${at(g.started)}, after it was sealed (${at(g.sealed)})` });
    }
    if (g.v2) prevV2 = g;
    const prev = g.prev;
    if (g.seq !== expectedSeq) {
      problems.push({ kind: 'missing', file: g.file, seq: g.seq, message: `${g.file}: seq ${g.seq} follows seq ${expectedSeq - 1}; trace(s) ${expectedSeq}..${g.seq - 1} are missing` });
    } else if (prev !== prevWhole) {
      const linked = prev ? byWhole.get(prev) : undefined;
      problems.push(
        linked
          ? { kind: 'reordered', file: g.file, seq: g.seq, message: `${g.file}: links to seq ${linked.seq}, not to seq ${g.seq - 1} (reordered)` }
          : { kind: 'forged', file: g.file, seq: g.seq, message: `${g.file}: prev_sha256 links to no trace of this chain (forged or inserted)` },
      );
    }
    expectedSeq = g.seq + 1;
    prevWhole = g.whole;
  }

  // The head remembers the last link the server wrote (and, during an append, the one being
  // written): a shorter chain lost its tail; a longer one gained traces the server never wrote.
  const lastSeq = good.length ? good[good.length - 1]!.seq : 0;
  if (head) {
    const pending = head.pending;
    if (head.seq > lastSeq && !(pending && pending.seq === lastSeq)) { // safety: chain-head
      const message = `the chain ends at seq ${lastSeq} but seq ${head.seq} (${head.file}) was written: trace(s) at the end are missing`;
      problems.push({ kind: 'missing', file: head.file, seq: head.seq, message });
    } else if (head.seq < lastSeq) {
      for (const g of good) {
        if (g.seq <= head.seq) continue;
        if (pending && pending.seq === g.seq && pending.file === g.file) continue;
        const message = `${g.file}: seq ${g.seq} is past the last trace the server wrote (seq ${head.seq}${head.file ? `, ${head.file}` : ''}) (appended by hand)`;
        problems.push({ kind: 'inserted', file: g.file, seq: g.seq, message });
      }
    }
    const recorded = good.find((g) => g.seq === head.seq);
    if (recorded && head.sha256 && recorded.whole !== head.sha256) {
      problems.push({ kind: 'forged', file: recorded.file, seq: recorded.seq, message: `${recorded.file}: is not the trace the chain head recorded (replaced)` });
    } else if (recorded && head.file && recorded.file !== head.file) {
      problems.push({ kind: 'renamed', file: recorded.file, seq: recorded.seq, message: `${recorded.file}: the chain head recorded seq ${head.seq} as ${head.file} (renamed)` });
    }
  } else if (files.length) { // safety: chain-head-mandatory
    // Security: the head is what notices a deleted tail; without it the chain proves nothing.
    problems.push({ kind: 'head', file: '.head.json', seq: null, message: `.head.json is ${headText === null ? 'missing' : 'corrupt'}: the chain's last link is unknown (deleted with the newest traces?)` });
  }
  // onboarding.json keeps a second copy of the last link: it may lag by one append (a crash
  // between the head and the state), never lead.
  if (mark instanceof Error) {
    problems.push({ kind: 'unparseable', file: null, seq: null, message: `onboarding.json cannot be read, so the chain's recorded last link cannot be checked (${mark.message})` });
  } else if (mark && mark.seq > lastSeq) { // safety: chain-state-mark
    problems.push({ kind: 'missing', file: mark.file, seq: mark.seq, message: `onboarding.json records seq ${mark.seq} (${mark.file}) but the chain ends at seq ${lastSeq}: trace(s) at the end are missing` });
  } else if (mark && mark.seq > 0) {
    const g = good.find((x) => x.seq === mark.seq);
    if (g && mark.sha256 && g.whole !== mark.sha256) {
      problems.push({ kind: 'forged', file: g.file, seq: g.seq, message: `${g.file}: is not the trace onboarding.json recorded as seq ${mark.seq} (replaced)` });
    } else if (g && mark.file && g.file !== mark.file) {
      problems.push({ kind: 'renamed', file: g.file, seq: g.seq, message: `${g.file}: onboarding.json recorded seq ${mark.seq} as ${mark.file} (renamed)` });
    }
  }
  return { chain: kind, dir, ok: problems.length === 0, count: files.length, lastSeq, problems };
}

function parseHead(text: string): Head | null {
  const v = jsonObject(text) as Head | null;
  return typeof v?.seq === 'number' ? v : null;
}

async function readText(file: string): Promise<string | null> {
  const read = await readTraceText(file);
  return typeof read === 'string' ? read : null;
}

/** The trace files of a chain folder, sorted by name (code units; seq-padded names sort by seq). */
async function listTraceFiles(dir: string): Promise<string[]> {
  const names = (await unlessMissing(() => fsp.readdir(dir))) ?? [];
  return names.filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * One trace file's text, read as UTF-8 (a symlink is followed); anything that is not a regular
 * file in the end (a FIFO, a folder, a device) is not read but returned as an Error, which the
 * caller reports. Security: a FIFO named like a trace must never hang a verify or a read.
 */
export async function readTraceText(file: string): Promise<string | Error> {
  try {
    const data = await readRegularFile(file, { followSymlinks: true });
    return Buffer.isBuffer(data) ? data.toString('utf8') : new Error('not a regular file (a folder, FIFO, socket or device; not read)');
  } catch (e) {
    return e instanceof Error ? e : new Error(String(e));
  }
}

/** Both hashes of a record, or null when it has no canonical form (NaN, a lone surrogate). */
function linkHashes(rec: Record<string, unknown>): { record: string; whole: string } | null {
  try {
    return { record: recordHash(rec), whole: wholeHash(rec) };
  } catch {
    return null;
  }
}

async function readJson(file: string): Promise<Record<string, unknown> | null> {
  const text = await readTraceText(file);
  return typeof text === 'string' ? jsonObject(text) : null;
}

/** The JSON object in text, or null (not JSON, or JSON but not an object). */
function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Create a file that must not exist, durably and atomically (io/durable.ts createExclusive). */
async function writeNew(file: string, data: string): Promise<void> {
  if (!(await createExclusive(file, data))) throw Object.assign(new Error(`${file} already exists`), { code: 'EEXIST' });
}

function safeLabel(label: string): string {
  return label.replace(/[^a-z0-9-]/gi, '-').slice(0, 40) || 'trace';
}

