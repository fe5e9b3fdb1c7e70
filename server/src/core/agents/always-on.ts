/**
 * Always-on rules of other agents (Cursor `alwaysApply: true`, Windsurf `trigger: always_on`)
 * go into Copilot's repository-wide file, which every Copilot surface attaches to every request
 * (issue 21: "`alwaysApply: true` goes to the repository-wide file"). An `applyTo: "**"` file
 * would reach only the surfaces that read path-specific files (not github.com chat, VS Code's
 * code review, Visual Studio's, Eclipse). Each rule's text (after its BOM and front matter) is
 * appended byte for byte after what the repository-wide file holds after the plan (or what it
 * holds now, or nothing), separated by a blank line; the source stays as it is. The proof: the
 * file's output gains one piece per rule and a separator span, and when the plan did not touch
 * the file before, its current bytes are one piece that tiles it (so it is a covered source).
 */
import type { Operation, PlanBody } from '../../schemas/plan.js';
import type { SourceFile } from '../types.js';
import { REPO_WIDE_PATH } from '../copilot-format.js';
import { sha256Hex } from '../canonical.js';
import { dominantEol } from '../plan-outputs.js';

type Output = PlanBody['lossless']['outputs'][number];

const endsWithEol = (b: Uint8Array): boolean => b.length > 0 && (b[b.length - 1] === 0x0a || b[b.length - 1] === 0x0d);
const dropEol = (b: Uint8Array): Uint8Array => (b.length >= 2 && b[b.length - 1] === 0x0a && b[b.length - 2] === 0x0d ? b.subarray(0, -2) : b.subarray(0, -1));

export interface AlwaysOnRule {
  source: SourceFile;
  bodyStart: number;
}

/**
 * The repository-wide file with the rules appended: its operation (modify or create), its proof
 * output, and whether its current bytes became a covered source. `op`/`output`: what the base
 * plan does with the file (null when nothing); `current`: the file as it is (null when absent).
 */
export function appendAlwaysOn(
  rules: readonly AlwaysOnRule[],
  op: Operation | null,
  output: Output | null,
  current: SourceFile | null,
): { operation: Operation; output: Output; bytes: Buffer; covers: string | null } {
  let head: Buffer;
  let pieces: Output['pieces'];
  let generated: Output['generated'];
  let covers: string | null = null;
  if (op && op.content !== null && output) {
    head = Buffer.from(op.content, 'utf8');
    pieces = [...output.pieces];
    generated = [...output.generated];
  } else if (current) {
    head = Buffer.from(current.bytes);
    pieces = head.length ? [{ sourcePath: current.path, sourceStart: 0, sourceEnd: head.length, outputStart: 0, outputEnd: head.length }] : [];
    generated = [];
    covers = current.path;
  } else {
    head = Buffer.alloc(0);
    pieces = [];
    generated = [];
  }
  const eol = dominantEol(current ? current.bytes : rules[0]!.source.bytes);
  const parts: Buffer[] = [head];
  let at = head.length;
  const gen = (text: string) => {
    if (!text) return;
    const b = Buffer.from(text, 'utf8');
    parts.push(b);
    generated.push({ outputStart: at, outputEnd: at + b.length, what: 'separator' });
    at += b.length;
  };
  for (const r of rules) {
    const body = Buffer.from(r.source.bytes.subarray(r.bodyStart));
    if (at > 0) {
      const sofar = Buffer.concat(parts);
      const endsLine = endsWithEol(sofar);
      gen(endsLine && endsWithEol(dropEol(sofar)) ? '' : endsLine ? eol : `${eol}${eol}`);
    }
    parts.push(body);
    pieces.push({ sourcePath: r.source.path, sourceStart: r.bodyStart, sourceEnd: r.source.size, outputStart: at, outputEnd: at + body.length });
    at += body.length;
  }
  const bytes = Buffer.concat(parts);
  const operation: Operation = {
    op: current ? 'modify' : 'create',
    path: REPO_WIDE_PATH,
    size: bytes.length,
    sha256: sha256Hex(bytes),
    content: bytes.toString('utf8'),
    previousSha256: current ? current.sha256 : null,
  };
  return { operation, output: { path: REPO_WIDE_PATH, pieces, generated }, bytes, covers };
}
