/**
 * Helpers of the hostile-input suite (test/hostile/): a sandbox with a workspace and a sibling
 * folder outside it, digests that never follow symlinks (so loops and links out are safe to
 * hash), the invariants every hostile case checks, and forgers for tar archives, backup
 * manifests and sealed traces that the product would never write itself.
 *
 * Case count (each `it` and each `it.each` row): 90 —
 *   headings 14, files 10, symlinks 5, yaml 9, state 8, backups 10, traces 6,
 *   elicitation 12, questions 3, overrides 11, workspace 2.
 * One case fails until the product is fixed (traces.test.ts: a sealed, correctly linked trace
 * appended after the last one, with `.head.json` left alone, is accepted as an approval).
 */
import { createHash } from 'node:crypto';
import * as fsSync from 'node:fs';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync, promises as fsp } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { expect } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { YES_APPROVE, YES_MIGRATE, YES_ROLLBACK, connect, textOf, type ElicitScript, type Harness } from './harness.js';
import { EXAMPLE } from './workspace.js';
import type { Config } from '../../server/src/runtime/config.js';
import { canonicalJson } from '../../server/src/core/canonical.js';

export { YES_APPROVE, YES_MIGRATE, YES_ROLLBACK };

export const STATE = '.copilot-state';

/** A temp folder holding `ws/` (the workspace) and `outside/` (a sibling the server must never touch). */
export interface Sandbox {
  parent: string;
  root: string;
  outside: string;
  /** Digest of `outside/` when the sandbox was made (plus anything the test put there with `plantOutside`). */
  outsideBefore: Record<string, string>;
}

const sandboxes: string[] = [];
const harnesses: Harness[] = [];

/**
 * `memory: true` puts the sandbox on tmpfs (/dev/shm) when there is one: for cases that write
 * thousands of files, where what is tested is naming and speed, not durability (every product
 * write is fsynced, and 10,000 fsyncs on a shared disk would dominate the suite).
 */
export function sandbox(opts: { example?: boolean; memory?: boolean } = {}): Sandbox {
  const base = opts.memory && isWritableDir('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const parent = mkdtempSync(path.join(base, 'co-hostile-'));
  sandboxes.push(parent);
  const root = path.join(parent, 'ws');
  const outside = path.join(parent, 'outside');
  if (opts.example) cpSync(EXAMPLE, root, { recursive: true });
  else mkdirSync(root);
  mkdirSync(outside);
  writeFileSync(path.join(outside, 'canary.txt'), 'the server must never write here\n');
  writeFileSync(path.join(outside, 'secret.md'), '# Secret\n\nOutside the workspace: never read, never written.\n');
  return { parent, root, outside, outsideBefore: treeDigestSync(outside) };
}

function isWritableDir(dir: string): boolean {
  try {
    fsSync.accessSync(dir, fsSync.constants.W_OK);
    return fsSync.statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Close every harness and remove every sandbox (call from afterEach). */
export async function cleanup(): Promise<void> {
  for (const h of harnesses.splice(0)) await h.close().catch(() => undefined);
  for (const d of sandboxes.splice(0)) rmSync(d, { recursive: true, force: true });
}

export async function open(
  root: string,
  opts: { elicit?: ElicitScript[]; caps?: Record<string, unknown>; config?: Partial<Config> } = {},
): Promise<Harness> {
  const h = await connect({ root, caps: opts.caps ?? { elicitation: {} }, elicit: opts.elicit ?? [], config: opts.config ?? {} });
  harnesses.push(h);
  return h;
}

function hashBytes(b: Uint8Array | string): string {
  return createHash('sha256').update(b).digest('hex');
}

function entryHash(abs: string, st: import('node:fs').Stats, read: (p: string) => Buffer, link: (p: string) => string): string {
  if (st.isSymbolicLink()) return `link:${link(abs)}`;
  if (st.isFile()) return `file:${(st.mode & 0o777).toString(8)}:${hashBytes(read(abs))}`;
  return `other:${st.mode.toString(8)}`;
}

/**
 * sha256 (and mode) of every entry under `dir`, by relative path; symlinks are recorded by their
 * target, never followed; folders are listed (an empty folder created or removed shows). `skip`
 * names top-level entries to leave out (e.g. `.copilot-state`).
 */
export function treeDigestSync(dir: string, skip: readonly string[] = []): Record<string, string> {
  // Synchronous on purpose: one snapshot in one go.
  const fs = fsSync;
  const out: Record<string, string> = {};
  const walk = (abs: string, rel: string): void => {
    for (const name of fs.readdirSync(abs).sort()) {
      const childRel = rel ? `${rel}/${name}` : name;
      if (!rel && skip.includes(name)) continue;
      const childAbs = path.join(abs, name);
      const st = fs.lstatSync(childAbs);
      if (st.isDirectory()) {
        out[`${childRel}/`] = 'dir';
        walk(childAbs, childRel);
      } else {
        out[childRel] = entryHash(childAbs, st, (p) => fs.readFileSync(p), (p) => fs.readlinkSync(p));
      }
    }
  };
  walk(dir, '');
  return out;
}

/** Everything in the workspace except the state folder (the "no byte lost" digest). */
export function wsDigest(root: string): Record<string, string> {
  return treeDigestSync(root, [STATE]);
}

/** Everything in the workspace except `.github/` and the state folder (must never change). */
export function nonGithubDigest(root: string): Record<string, string> {
  return treeDigestSync(root, [STATE, '.github']);
}

export interface Guard {
  ws: Record<string, string>;
  rest: Record<string, string>;
}

/** Take the digests a hostile case compares afterwards. */
export function guard(sb: Sandbox): Guard {
  return { ws: wsDigest(sb.root), rest: nonGithubDigest(sb.root) };
}

/** Anything that can call a tool: the SDK harness or the raw client. */
export interface Caller {
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
}

/**
 * The invariants of every case: the server still answers (onboarding_status), nothing outside
 * `.github/` and `.copilot-state/` changed, the sibling folder outside the workspace is
 * untouched, and — unless `changed` — no byte of the workspace changed at all.
 */
export async function expectSafe(h: Caller, sb: Sandbox, before: Guard, opts: { changed?: boolean } = {}): Promise<Record<string, unknown>> {
  const st = await h.call('onboarding_status', {});
  expect(st.content.length).toBeGreaterThan(0);
  const sc = st.structuredContent as Record<string, unknown>;
  expect(sc).toHaveProperty('status');
  expect(nonGithubDigest(sb.root)).toEqual(before.rest);
  if (!opts.changed) expect(wsDigest(sb.root)).toEqual(before.ws);
  expect(treeDigestSync(sb.outside)).toEqual(sb.outsideBefore);
  // Nothing new next to the workspace either (a write through `..` would land here).
  expect(fsSync.readdirSync(sb.parent).sort()).toEqual(['outside', 'ws']);
  return sc;
}

/** An isError result whose text names `code` (and says why). */
export function expectRefused(r: CallToolResult, code: string | RegExp): string {
  const text = textOf(r);
  expect(r.isError, text).toBe(true);
  if (typeof code === 'string') expect(text).toContain(code);
  else expect(text).toMatch(code);
  return text;
}

export function expectOk(r: CallToolResult): Record<string, unknown> {
  expect(r.isError, textOf(r)).toBeFalsy();
  return r.structuredContent as Record<string, unknown>;
}

export function sc(r: CallToolResult): Record<string, unknown> {
  return (r.structuredContent ?? {}) as Record<string, unknown>;
}


export async function readJson<T = Record<string, unknown>>(abs: string): Promise<T> {
  return JSON.parse(await fsp.readFile(abs, 'utf8')) as T;
}

/**
 * Propose (with `overrides`) → approve → migrate → rollback through the tools, asserting the
 * migration wrote only under `.github/`, the outputs are under `.github/instructions/`, and the
 * rollback restores the workspace byte for byte. Returns the plan's structured content.
 */
export async function roundTrip(sb: Sandbox, overrides: unknown[] = []): Promise<{ plan: Record<string, unknown>; created: string[]; h: Harness }> {
  const h = await open(sb.root, { elicit: [YES_APPROVE, YES_MIGRATE, YES_ROLLBACK] });
  const before = guard(sb);
  const plan = expectOk(await h.call('onboarding_propose', { narrate: false, overrides }));
  expect(wsDigest(sb.root)).toEqual(before.ws);
  expectOk(await h.call('onboarding_approve', {}));
  const m = expectOk(await h.call('onboarding_migrate', {}));
  expect(m).toMatchObject({ migrated: true, verified: true });
  const written = m.written as Array<{ path: string; op: string }>;
  const created = written.filter((w) => w.op === 'create').map((w) => w.path);
  for (const w of written) {
    if (w.op === 'create') expect(w.path).toMatch(/^\.github\/instructions\/[a-z0-9]+(?:-[a-z0-9]+)*\.instructions\.md$/);
    else expect(w.path).toBe('.github/copilot-instructions.md');
  }
  expect(new Set(created).size).toBe(created.length);
  const after = wsDigest(sb.root);
  for (const c of created) expect(after[c], c).toMatch(/^file:/);
  await expectSafe(h, sb, before, { changed: true });
  const r = await h.call('onboarding_rollback', {});
  expectOk(r);
  expect(wsDigest(sb.root)).toEqual(before.ws);
  await expectSafe(h, sb, before);
  return { plan, created, h };
}

/** Bytes of a file under `.copilot-state/` (null when absent). */
export function stateBytes(root: string, rel: string): Buffer | null {
  try {
    return fsSync.readFileSync(path.join(root, STATE, rel));
  } catch {
    return null;
  }
}

/** Files (not dot-files) in a folder under `.copilot-state/`, sorted; [] when absent. */
export function stateFiles(root: string, relDir: string): string[] {
  try {
    return fsSync.readdirSync(path.join(root, STATE, relDir)).filter((f) => !f.startsWith('.')).sort();
  } catch {
    return [];
  }
}

/**
 * The bundled example in a new sandbox, a plan proposed and the approve form answered with
 * `elicit[0]` (expected to approve when that is YES_APPROVE); the harness still holds the rest
 * of `elicit` for what the case does next.
 */
export async function approveAnswered(elicit: ElicitScript[]): Promise<{ sb: Sandbox; h: Harness; plan: Record<string, unknown> }> {
  const sb = sandbox({ example: true });
  const h = await open(sb.root, { elicit });
  const plan = expectOk(await h.call('onboarding_propose', { narrate: false }));
  const approve = await h.call('onboarding_approve', {});
  if (elicit[0] === YES_APPROVE) expectOk(approve);
  return { sb, h, plan };
}

/**
 * The bundled example migrated through the tools (propose → approve → migrate); the harness
 * still holds `elicit` answers for what the case does next (e.g. a rollback confirmation).
 */
export async function migrated(sb: Sandbox, elicit: ElicitScript[] = [YES_ROLLBACK]): Promise<{ h: Harness; migrationId: string; manifestAbs: string; archiveAbs: string }> {
  const h = await open(sb.root, { elicit: [YES_APPROVE, YES_MIGRATE, ...elicit] });
  expectOk(await h.call('onboarding_propose', { narrate: false }));
  expectOk(await h.call('onboarding_approve', {}));
  const m = expectOk(await h.call('onboarding_migrate', {}));
  expect(m.migrated).toBe(true);
  const migrationId = m.migrationId as string;
  const dir = path.join(sb.root, STATE, 'backups');
  return { h, migrationId, manifestAbs: path.join(dir, `${migrationId}.manifest.json`), archiveAbs: path.join(dir, `${migrationId}.tar.gz`) };
}

/**
 * Rewrite a backup manifest and re-seal it (its own `sha256`), so that only the change under
 * test can make rollback refuse — never a hash mismatch the forger forgot to fix.
 */
export function rewriteManifest(abs: string, change: (m: Record<string, unknown>) => void): void {
  const m = JSON.parse(fsSync.readFileSync(abs, 'utf8')) as Record<string, unknown>;
  change(m);
  delete m.sha256;
  m.sha256 = sha256(canonicalJson(m));
  writeFileSync(abs, `${JSON.stringify(m, null, 2)}\n`);
}

/** Replace a backup archive with `bytes` and fix the manifest's archive hash and size to match. */
export function replaceArchive(archiveAbs: string, manifestAbs: string, bytes: Buffer): void {
  writeFileSync(archiveAbs, bytes);
  rewriteManifest(manifestAbs, (m) => {
    m.archiveSha256 = sha256(bytes);
    m.archiveSize = bytes.length;
  });
}

export const TRACES = `${STATE}/elicitation-traces`;

/** Elicitation trace files, in name order, with their parsed records. */
export function traceRecords(root: string): Array<{ file: string; abs: string; rec: Record<string, unknown> }> {
  const dir = path.join(root, TRACES);
  return stateFiles(root, 'elicitation-traces')
    .filter((f) => f.endsWith('.json'))
    .map((file) => ({ file, abs: path.join(dir, file), rec: JSON.parse(fsSync.readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown> }));
}

/** Give a trace record a valid seal (its own sha256), as a forger who read the source would. */
export function reseal(rec: Record<string, unknown>): Record<string, unknown> {
  const { sha256: _drop, ...body } = rec;
  void _drop;
  return { ...body, sha256: sha256(canonicalJson(body)) };
}

/** sha256 of a whole trace record: what the next trace's `prev_sha256` must be. */
export function wholeSha(rec: Record<string, unknown>): string {
  return sha256(canonicalJson(rec));
}

/** Point the elicitation chain's head (`.head.json`) and onboarding.json's chain mark at `mark`, as a forger would. */
export function writeChainMark(root: string, mark: { seq: number; sha256: string; file: string }): void {
  fsSync.writeFileSync(path.join(root, TRACES, '.head.json'), JSON.stringify(mark));
  const stateFile = path.join(root, STATE, 'onboarding.json');
  const state = JSON.parse(fsSync.readFileSync(stateFile, 'utf8')) as { chains?: Record<string, unknown> };
  state.chains = { ...state.chains, elicitation: mark };
  fsSync.writeFileSync(stateFile, JSON.stringify(state, null, 2) + '\n');
}

/**
 * What a forger with write access to the workspace (and the source code) writes after `last`:
 * an "approved" approve record with link and hash from the public formulas, the head and the
 * mark. `over` changes fields of the record. Returns the record.
 */
export function appendForgedApproval(root: string, last: Record<string, unknown>, over: Record<string, unknown> = {}): Record<string, unknown> {
  const timestamp = new Date().toISOString();
  const file = `${timestamp.replace(/[:.]/g, '-')}-approve.json`;
  const rec = reseal({
    ...last,
    action: 'approve',
    outcome: 'approved',
    response: { action: 'accept', content: { approved: true } },
    error: null,
    duration_ms: 4200,
    expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    seq: Number(last.seq) + 1,
    prev_sha256: wholeSha(last),
    prev_file: last.file,
    timestamp,
    file,
    sealed_at: timestamp,
    ...over,
  });
  fsSync.writeFileSync(path.join(root, TRACES, file), JSON.stringify(rec, null, 2) + '\n');
  writeChainMark(root, { seq: Number(rec.seq), sha256: wholeSha(rec), file });
  return rec;
}

/** A "billion laughs" YAML block: 9 levels of 9 aliases (9^9 nodes if anyone expanded it). */
export function billionLaughs(lastKey: string): string {
  const lines = ['l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i <= 8; i++) lines.push(`l${i}: &l${i} [${Array.from({ length: 9 }, () => `*l${i - 1}`).join(',')}]`);
  lines.push(`${lastKey}: *l8`);
  return lines.join('\n');
}

// ------------------------------------------------------------------ tar forgery

export interface TarEntry {
  name: string;
  /** '0' file, '2' symlink, '5' directory, '1' hard link. */
  type?: '0' | '1' | '2' | '5';
  body?: string | Buffer;
  linkname?: string;
  mode?: number;
}

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, '0') + '\0';
}

/** One ustar header + body, written by hand so any name (absolute, `..`) goes in verbatim. */
function tarEntry(e: TarEntry): Buffer {
  const body = e.body === undefined ? Buffer.alloc(0) : Buffer.isBuffer(e.body) ? e.body : Buffer.from(e.body);
  const type = e.type ?? '0';
  const size = type === '0' ? body.length : 0;
  const h = Buffer.alloc(512);
  h.write(e.name, 0, 100, 'utf8');
  h.write(octal(e.mode ?? 0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.floor(Date.UTC(2026, 0, 1) / 1000), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write(type, 156, 'ascii');
  if (e.linkname) h.write(e.linkname, 157, 100, 'utf8');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7) + ' ', 148, 'ascii');
  const pad = Buffer.alloc((512 - (size % 512)) % 512);
  return Buffer.concat([h, type === '0' ? body : Buffer.alloc(0), pad]);
}

export function forgeTarGz(entries: TarEntry[]): Buffer {
  return zlib.gzipSync(Buffer.concat([...entries.map(tarEntry), Buffer.alloc(1024)]));
}

export function sha256(b: Uint8Array | string): string {
  return hashBytes(b);
}

// ------------------------------------------------------------------ a raw, non-SDK client

import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_CONFIG } from '../../server/src/runtime/config.js';
import { createLogger } from '../../server/src/runtime/log.js';
import { createServer } from '../../server/src/mcp/server.js';

/**
 * A hand-written JSON-RPC client over InMemoryTransport that declares elicitation and answers
 * every `elicitation/create` with `respond(params)` verbatim — no SDK validation on the client
 * side, so the server sees exactly what a hostile or buggy client would send.
 */
export interface RawClient {
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  shown: unknown[];
  close(): Promise<void>;
}

export async function rawClient(root: string, respond: (params: unknown) => unknown): Promise<RawClient> {
  const { mcp } = createServer({ workspace: root, fallbackRoot: root, config: { ...DEFAULT_CONFIG }, log: createLogger({ stderr: false }), version: '0.0.0-test' });
  const [c, s] = InMemoryTransport.createLinkedPair();
  await mcp.connect(s);
  const pending = new Map<number | string, (m: Record<string, unknown>) => void>();
  const shown: unknown[] = [];
  let id = 100;
  let listChanged!: () => void;
  const toolsListed = new Promise<void>((r) => (listChanged = r));
  c.onmessage = (msg: JSONRPCMessage) => {
    const m = msg as Record<string, unknown>;
    if (m.method === 'notifications/tools/list_changed') {
      listChanged();
    } else if (m.method === 'elicitation/create') {
      shown.push(m.params);
      void c.send({ jsonrpc: '2.0', id: m.id as number, result: respond(m.params) as Record<string, unknown> } as JSONRPCMessage);
    } else if (m.method === 'ping') {
      void c.send({ jsonrpc: '2.0', id: m.id as number, result: {} } as JSONRPCMessage);
    } else if (m.id !== undefined && pending.has(m.id as number)) {
      pending.get(m.id as number)!(m);
      pending.delete(m.id as number);
    }
  };
  await c.start();
  const request = (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> =>
    new Promise((resolve) => {
      const rid = id++;
      pending.set(rid, resolve);
      void c.send({ jsonrpc: '2.0', id: rid, method, params } as JSONRPCMessage);
    });
  await request('initialize', { protocolVersion: '2025-06-18', capabilities: { elicitation: {} }, clientInfo: { name: 'raw-hostile-client', version: '0' } });
  await c.send({ jsonrpc: '2.0', method: 'notifications/initialized' } as JSONRPCMessage);
  // It declared elicitation: once initialized, the server enables question_ask and says so.
  await toolsListed;
  const rc: RawClient = {
    shown,
    call: async (name, args = {}) => {
      const m = await request('tools/call', { name, arguments: args });
      if (m.error) throw new Error(`JSON-RPC error: ${JSON.stringify(m.error)}`);
      return m.result as CallToolResult;
    },
    close: async () => {
      await c.close();
      await mcp.close();
    },
  };
  rawClients.push(rc);
  return rc;
}
const rawClients: RawClient[] = [];
export async function closeRawClients(): Promise<void> {
  for (const r of rawClients.splice(0)) await r.close().catch(() => undefined);
}
