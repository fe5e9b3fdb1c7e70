/**
 * Shared data types of the pure core: Snapshot -> Analysis -> Plan.
 * Byte offsets are always into the source file's raw bytes (a BOM, if any, is byte 0..3).
 * Paths are workspace-relative, POSIX separators.
 */

import type { AgentInventory } from './agents/inventory.js';

export type SourceKind =
  /** `.github/copilot-instructions.md`: the repository-wide file. */
  | 'copilot-repo'
  /** `.github/instructions/**\/*.instructions.md`: path-specific files. */
  | 'copilot-path'
  /** AGENTS.md, CLAUDE.md, GEMINI.md, .cursorrules, .cursor/rules/*.mdc, .windsurfrules, .clinerules: reported only. */
  | 'other-agent';

export interface SourceFile {
  path: string;
  kind: SourceKind;
  bytes: Uint8Array;
  size: number;
  sha256: string;
  /** Set when the file is reached through a symlink: its real path, workspace-relative. */
  linkTo?: string;
}

/** A source the snapshot refused to read, with the reason (symlink out of the workspace, too big, binary, invalid UTF-8). */
export interface RefusedSource {
  path: string;
  kind: SourceKind;
  reason: string;
}

export interface Snapshot {
  sources: SourceFile[];
  refused: RefusedSource[];
  /** Workspace files (relative POSIX paths, sorted) used to check that a proposed glob matches something. */
  files: string[];
  /** True when the file walk stopped at its cap (the list is partial). */
  filesTruncated: boolean;
  /** Entries under `.github/instructions` that are neither files nor symlinks (folders, FIFOs, sockets): no plan may create a file there. */
  taken?: string[];
}

export interface ByteRange {
  start: number;
  end: number;
}

export type LineEnding = 'lf' | 'crlf' | 'cr' | 'mixed' | 'none';

export interface Heading {
  level: number; // 1..6
  /** Heading text without markers, trimmed, inline markup left as is. */
  text: string;
  style: 'atx' | 'setext';
  /** Bytes of the heading line(s), including the line ending. */
  start: number;
  end: number;
  /** 1-based line of the heading's first line. */
  line: number;
}

export interface ParsedMarkdown {
  bom: boolean;
  lineEnding: LineEnding;
  /** YAML front matter block (`---` ... `---`) at the top, bytes including both fences and the trailing newline. */
  frontMatter: (ByteRange & { raw: string }) | null;
  headings: Heading[];
  /** Byte offset of the start of each line (line n, 1-based, starts at lineStarts[n-1]). */
  lineStarts: number[];
  size: number;
  /** The whole file decoded, without its BOM. */
  text: string;
}

export interface Section {
  /** Stable id within a plan: `s<NN>-<slug>` (index is per workspace, in source order). */
  id: string;
  sourcePath: string;
  title: string;
  /** Heading level that opened the section, 0 for the preamble and for proposed (generated) sections. */
  level: number;
  /** The source bytes of this section, in order; more than one range only for proposed topic groups. */
  ranges: ByteRange[];
  startLine: number;
  endLine: number;
  /** True when the section was proposed by grouping unstructured text (no heading of its own). */
  proposed: boolean;
  kind: 'preamble' | 'heading' | 'topic' | 'frontmatter';
}

export type Pattern = 'clean' | 'structured' | 'unstructured' | 'messy' | 'migrated';

type ProblemCode =
  | 'DUPLICATE_HEADING'
  | 'EMPTY_SECTION'
  | 'POSSIBLE_CONTRADICTION'
  | 'MALFORMED_APPLY_TO'
  | 'MISSING_APPLY_TO'
  | 'INVALID_FRONT_MATTER'
  | 'SOURCE_REFUSED'
  | 'OTHER_AGENT_FILES';

export interface Problem {
  code: ProblemCode;
  severity: 'info' | 'warning' | 'error';
  message: string;
  path: string;
  /** 1-based line numbers that show the evidence. */
  lines: number[];
}

export interface ExistingInstruction {
  path: string;
  /** Normalised applyTo (comma-separated globs) or null when absent/unreadable. */
  applyTo: string | null;
  /** The shape found in the file, e.g. 'quoted-string', 'unquoted-string', 'yaml-list', 'missing'. */
  applyToShape: string;
  description: string | null;
}

export interface Analysis {
  pattern: Pattern;
  sources: Array<{ path: string; kind: SourceKind; size: number; sha256: string; lines: number; chars: number }>;
  sections: Section[];
  /** Every heading of the repository-wide file, all levels (the plan splits large sections at them). */
  headings: Heading[];
  problems: Problem[];
  existingInstructions: ExistingInstruction[];
  otherAgentFiles: string[];
  /** Every instruction source, Copilot's and other agents', with who reads it and the rules found in more than one (core/agents/inventory.ts). */
  agents?: AgentInventory;
}

/**
 * What decided a scope: a topic the heading names (taxonomy.ts), a path, root file or folder the
 * heading names (a folder by a word the body also writes as a path), a folder named by a heading
 * word alone, paths the body names, the code fences, body keywords, or the repository's languages
 * (a heading about how code is written). subsections.ts lets only some of them take a part out of its chapter.
 */
export type ScopeBasis = 'topic' | 'heading' | 'heading-word' | 'body-paths' | 'fences' | 'keywords' | 'languages';

export interface ScopeResult {
  /** Globs for applyTo, or null when no confident scope (the section stays repository-wide). */
  applyTo: string[] | null;
  /** Human-readable evidence, e.g. `heading "TypeScript"`, `src/orders.ts exists`. */
  evidence: string[];
  /** What decided the globs (inference only; absent when applyTo is null or for a scope another section gave). */
  basis?: ScopeBasis;
}
