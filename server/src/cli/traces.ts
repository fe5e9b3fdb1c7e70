/**
 * `copilot-onboarding traces list|show|verify`: read and check both trace chains from a
 * terminal. Reads only.
 * Security: a trace holds what a client sent and what a workspace contained (headings, file
 * names, answers); every line printed is sanitized, so no escape sequence is replayed.
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import { ErrorCode, OnboardingError } from '../core/errors.js';
import { TraceStore, recordHash, traceFileExists, verifyChain, type VerifyResult } from '../io/traces.js';
import { loadUserKey, userKeyPath } from '../io/user-key.js';
import { CHAINS, rel, traceDirName, type ChainKind } from '../io/layout.js';
import type { ElicitationTrace, SamplingTrace } from '../schemas/trace.js';
import { sanitizeLines } from '../core/sanitize.js';
import { listChain, type TraceSummary } from '../app/trace-summary.js';
import { CliExit, ExitCode, jsonOk, resolveWorkspace, table, writeJson, type CliIo } from './common.js';

interface CommonOpts {
  workspace?: string;
  json?: boolean;
  chain?: ChainKind;
}

export function registerTracesCommand(program: Command, io: CliIo): void {
  const traces = program.command('traces').description('List, show and verify the elicitation and sampling trace chains.');
  const sub = (name: string, description: string) =>
    traces
      .command(name)
      .description(description)
      .addOption(new Option('-w, --workspace <dir>', 'workspace root (else COPILOT_ONBOARDING_WORKSPACE, else the current folder)'))
      .addOption(new Option('--chain <chain>', 'only this chain').choices([...CHAINS]))
      .addOption(new Option('--json', 'print a JSON envelope {ok, command, data}'));

  sub('list', 'One line per trace, both chains (elicitation, sampling), in seq order.').action(async (o: CommonOpts) => {
      const root = resolveWorkspace(o.workspace, io);
      const chains = o.chain ? [o.chain] : CHAINS;
      const data: Partial<Record<ChainKind, TraceSummary[]>> = {};
      for (const c of chains) data[c] = await listChain(root, c);
      if (o.json) {
        writeJson(io.stdout, jsonOk('traces list', { workspace: root, chains: data }));
        return;
      }
      const blocks = chains.map((c) => listBlock(c, data[c] ?? []));
      io.stdout.write(sanitizeLines(blocks.join('\n\n')) + '\n');
    });

  sub('show', 'Pretty-print one trace, by file name or by seq (seq numbers are per chain; default chain: elicitation).')
    .argument('<file|seq>', 'trace file name (or path) or seq number')
    .action(async (ref: string, o: CommonOpts) => {
      const root = resolveWorkspace(o.workspace, io);
      const found = await findTrace(root, ref, o.chain);
      const intact = recordHash(found.record as unknown as Record<string, unknown>) === found.record.sha256;
      if (o.json) {
        writeJson(io.stdout, jsonOk('traces show', { chain: found.chain, file: found.file, path: found.rel, intact, record: found.record }));
        return;
      }
      io.stdout.write(sanitizeLines(showText(found.chain, found.rel, found.record, intact)) + '\n');
    });

  sub('verify', 'Walk both hash chains and check each trace against your per-user trace key; report any modified, missing, inserted, reordered, forged, unauthenticated or unparseable trace (exit 3). Without the key (another machine, or --chain-only) only the hash chain is checked, and the output says so.')
    .addOption(new Option('--chain-only', "check the hash chain only, not the traces' macs (an auditor without the key)"))
    .action(async (o: CommonOpts & { chainOnly?: boolean }) => {
      const root = resolveWorkspace(o.workspace, io);
      const chains = o.chain ? [o.chain] : CHAINS;
      const key = o.chainOnly ? null : await loadUserKey();
      const reports: Array<VerifyResult<never>> = [];
      for (const c of chains) reports.push(await verifyChain(root, c, { key }));
      const ok = reports.every((r) => r.ok);
      if (o.json) {
        writeJson(io.stdout, {
          ok,
          command: 'traces verify',
          data: { workspace: root, chains: reports.map(({ end: _end, from: _from, facts: _facts, ...r }) => ({ ...r, dir: rel(traceDirName(r.chain)) })) },
          ...(ok ? {} : { exitCode: ExitCode.VERIFY_FAILED }),
        });
      } else {
        const lines: string[] = [];
        for (const r of reports) {
          const name = traceDirName(r.chain);
          if (r.ok) {
            lines.push(`${name}: OK (${r.count} trace${r.count === 1 ? '' : 's'}${r.count ? `, seq 1..${r.lastSeq}` : ''})`);
          } else {
            lines.push(`${name}: BROKEN (${r.problems.length} problem${r.problems.length === 1 ? '' : 's'} in ${r.count} file${r.count === 1 ? '' : 's'})`);
            for (const p of r.problems) lines.push(`  ${p.kind.padEnd(15)} ${p.file ?? '(no file)'}: ${stripFile(p.message, p.file)}`);
          }
          if (r.foreign) {
            const n = r.foreign.count;
            lines.push(
              `  ${n} trace${n === 1 ? '' : 's'} (seq ${r.foreign.first}..${r.foreign.last}) before the first one your key authenticates: written before per-user keys, or with another user's key; checked as a hash chain only, and no approval among them is honoured`,
            );
          }
        }
        lines.push(
          key
            ? `Every trace's mac was checked with your per-user trace key (${key.file}).`
            : o.chainOnly
              ? 'Hash chain only (--chain-only): the macs were not checked, so traces written by anyone who can write the workspace would pass.'
              : `Hash chain only: no per-user trace key here (${userKeyPath()}), so the macs were not checked (an auditor on another machine sees this). Traces written by anyone who can write the workspace would pass; check on the machine of the user who approved.`,
        );
        io.stdout.write(sanitizeLines(lines.join('\n')) + '\n');
        if (!ok) io.stderr.write('Trace verification FAILED: the audit trail was changed after it was written.\n');
      }
      if (!ok) throw new CliExit(ExitCode.VERIFY_FAILED, 'trace verification failed');
    });
}

function stripFile(message: string, file: string | null): string {
  return file && message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message;
}

function listBlock(chain: ChainKind, rows: TraceSummary[]): string {
  const title = `${traceDirName(chain)} (${rows.length})`;
  if (!rows.length) return `${title}\n  (none)`;
  const label = chain === 'elicitation' ? 'ACTION' : 'INTENT';
  const header = chain === 'elicitation' ? ['SEQ', 'TIME', label, 'CHANNEL', 'CLIENT', 'OUTCOME', 'SUBJECT'] : ['SEQ', 'TIME', label, 'CLIENT', 'OUTCOME', 'SUBJECT'];
  const body = rows.map((r) => {
    if (r.error) {
      const cells = ['?', '-', '-', '-', 'UNREADABLE', `${r.file} (${r.error})`];
      return chain === 'elicitation' ? [cells[0]!, cells[1]!, cells[2]!, '-', ...cells.slice(3)] : cells;
    }
    const cells = [String(r.seq), r.timestamp ?? '-', r.action ?? '-', r.client ?? '-', r.outcome ?? '-', r.subject || '-'];
    return chain === 'elicitation' ? [cells[0]!, cells[1]!, cells[2]!, r.channel ?? '-', ...cells.slice(3)] : cells;
  });
  return `${title}\n${table(header, body)}`;
}

interface Found {
  chain: ChainKind;
  file: string;
  rel: string;
  record: ElicitationTrace | SamplingTrace;
}

async function findTrace(root: string, ref: string, chain: ChainKind | undefined): Promise<Found> {
  const bySeq = /^\d+$/.test(ref);
  const inferred: ChainKind | undefined = chain ?? (ref.includes('sampling-traces') ? 'sampling' : ref.includes('elicitation-traces') ? 'elicitation' : undefined);
  const candidates: ChainKind[] = inferred ? [inferred] : bySeq ? ['elicitation'] : [...CHAINS];
  const hits: Found[] = [];
  const name = path.basename(ref);
  if (!bySeq && (!/^[A-Za-z0-9._-]+\.json$/.test(name) || name.startsWith('.'))) {
    throw new OnboardingError(ErrorCode.INVALID_INPUT, `"${ref}" is not a trace file name or seq number.`, { next: 'Run `copilot-onboarding traces list` to see them.' });
  }
  for (const c of candidates) {
    if (!bySeq && !(await traceFileExists(root, c, name))) continue;
    const got = await new TraceStore(root, c).get(bySeq ? Number(ref) : name);
    if (!got && !bySeq) {
      throw new OnboardingError(ErrorCode.TRACE_CHAIN_BROKEN, `${traceDirName(c)}/${name} is not a readable trace (not valid JSON, or not a ${c} trace).`, {
        next: 'Run `copilot-onboarding traces verify` for the whole chain.',
      });
    }
    if (got) hits.push({ chain: c, file: got.file, rel: rel(traceDirName(c), got.file), record: got.record });
  }
  const [hit, second] = hits;
  if (second) {
    throw new OnboardingError(ErrorCode.INVALID_INPUT, `"${ref}" exists in both chains.`, { next: 'Add --chain elicitation or --chain sampling.' });
  }
  if (!hit) {
    throw new OnboardingError(
      ErrorCode.INVALID_INPUT,
      bySeq ? `No ${candidates[0]} trace with seq ${ref}.` : `No trace named ${path.basename(ref)} in ${candidates.map((c) => traceDirName(c)).join(' or ')}.`,
      { next: `Run \`copilot-onboarding traces list\` to see them${bySeq ? '; use --chain sampling for sampling traces' : ''}.` },
    );
  }
  return hit;
}

const j = (v: unknown) => JSON.stringify(v, null, 2);
const indent = (s: string, pre: string) => pre + s.split('\n').join(`\n${pre}`);

function showText(chain: ChainKind, rel: string, rec: ElicitationTrace | SamplingTrace, intact: boolean): string {
  const head = [`${chain} trace #${rec.seq}  ${rel}`];
  if (!intact) head.push('WARNING: this file does not match its sha256 — it was modified after it was written (see `traces verify`).');
  const kv = (k: string, v: string) => `  ${`${k}:`.padEnd(13)}${v}`;
  const common = [kv('duration', `${rec.duration_ms} ms`), kv('error', rec.error ?? '-'), kv('prev_sha256', rec.prev_sha256 ?? '(first trace)'), kv('sha256', rec.sha256)];
  const client = kv('client', `${rec.client.name} ${rec.client.version}`);
  if ('action' in rec) {
    return [
      ...head,
      kv('time', rec.timestamp),
      kv('action', `${rec.action} (channel ${rec.channel})`),
      client,
      kv('outcome', `${rec.outcome}${rec.code ? ` (${rec.code})` : ''}${rec.suspected_automatic ? ' (suspected automatic answer)' : ''}`),
      ...common,
      'subject:',
      indent(j(rec.subject), '    '),
      'message shown:',
      indent(rec.message, '  | '),
      'schema sent:',
      indent(j(rec.schema), '    '),
      'response:',
      indent(j(rec.response), '    '),
    ].join('\n');
  }
  const text = rec.response && typeof rec.response.text === 'string' ? rec.response.text : null;
  const { text: _t, ...respRest } = rec.response ?? {};
  return [
    ...head,
    kv('time', rec.timestamp),
    kv('intent', rec.intent),
    client,
    kv('outcome', rec.outcome),
    kv('fallback', rec.fallback_used ? 'yes (deterministic text used)' : 'no'),
    ...common,
    'request:',
    indent(j(rec.request), '    '),
    'response:',
    indent(j(rec.response ? respRest : null), '    '),
    ...(text !== null ? ['response text:', indent(text, '  | ')] : []),
  ].join('\n');
}
