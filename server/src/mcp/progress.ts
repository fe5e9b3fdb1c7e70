import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';

export type ToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Progress notifications for one tool call. `progress` must increase with every
 * notification (spec, basic/utilities/progress), so one counter serves heartbeats and steps.
 * A no-op when the client sent no progress token.
 */
export class Progress {
  private n = 0;
  constructor(private readonly extra: ToolExtra | undefined) {}

  get enabled(): boolean {
    return this.extra?._meta?.progressToken !== undefined;
  }

  send(message: string, total?: number, progress?: number): void {
    const token = this.extra?._meta?.progressToken;
    if (token === undefined || this.extra!.signal.aborted) return;
    this.n = Math.max(this.n + 1, progress ?? 0);
    void this.extra!
      .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: this.n, ...(total ? { total } : {}), message } })
      .catch(() => undefined);
  }

  /** Send a heartbeat every `ms` until the returned stop function is called. */
  heartbeat(ms: number, message: string): () => void {
    if (!this.enabled) return () => undefined;
    const t = setInterval(() => this.send(message), ms);
    t.unref?.();
    return () => clearInterval(t);
  }
}
