/**
 * What every tool needs: the workspace root (option, else the client's first root, else the
 * fallback), config and its clock, logging,
 * and the trace stores of that root. Built once per server; holds no other mutable state.
 */
import path from 'node:path';
import { assertWorkspaceFolder } from '../io/workspace.js';
import { fileURLToPath } from 'node:url';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Config } from '../runtime/config.js';
import type { Logger } from '../runtime/log.js';
import type { TraceStore } from '../io/traces.js';

export interface ContextOptions {
  /** `--workspace` or COPILOT_ONBOARDING_WORKSPACE, already merged by the caller. */
  workspace?: string | undefined;
  /** Used when neither the option nor a client root gives a workspace (the process cwd, passed explicitly). */
  fallbackRoot: string;
  config: Config;
  log: Logger;
  version: string;
}

export class ToolContext {
  private rootsRoot: string | null | undefined; // undefined = not asked yet; null = no usable root
  constructor(
    readonly mcp: McpServer,
    readonly opts: ContextOptions,
  ) {}

  get config(): Config {
    return this.opts.config;
  }

  /** The configured clock (milliseconds since the epoch). */
  now(): number {
    return this.opts.config.now();
  }

  get log(): Logger {
    return this.opts.log;
  }

  /** Forget the client's roots (they changed). */
  resetRoots(): void {
    this.rootsRoot = undefined;
  }

  /**
   * Workspace root: option/env, else the client's first file:// root, else the fallback.
   * It must be an existing folder: nothing is asked or written otherwise.
   */
  async root(): Promise<string> {
    const root = await this.resolveRoot();
    assertWorkspaceFolder(root);
    return root;
  }

  private async resolveRoot(): Promise<string> {
    if (this.opts.workspace) return path.resolve(this.opts.workspace);
    if (this.rootsRoot === undefined) {
      this.rootsRoot = null;
      if (this.mcp.server.getClientCapabilities()?.roots) {
        try {
          const { roots } = await this.mcp.server.listRoots(undefined, { timeout: 5_000 });
          const first = roots.find((r) => r.uri.startsWith('file://'));
          if (first) this.rootsRoot = fileURLToPath(first.uri);
        } catch (e) {
          this.log.log('warning', 'Could not list the client roots; using the fallback workspace.', { error: (e as Error).message });
        }
      }
    }
    return this.rootsRoot ?? path.resolve(this.opts.fallbackRoot);
  }

  // The trace store (and what it loads) is imported on first use: the server's start does not need it.
  async elicitationTraces(root: string): Promise<TraceStore<'elicitation'>> {
    const { TraceStore } = await import('../io/traces.js');
    return new TraceStore(root, 'elicitation', { now: () => this.now(), approvalTtlMs: this.config.approvalTtlMs });
  }

  async samplingTraces(root: string): Promise<TraceStore<'sampling'>> {
    const { TraceStore } = await import('../io/traces.js');
    return new TraceStore(root, 'sampling', { now: () => this.now() });
  }
}
