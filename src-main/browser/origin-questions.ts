// The origins a thread's browser may reach beyond loopback (the network being on): those the user allowed,
// and the questions about the others. A page's own requests are asked about as request interception sees
// them; a redirect's next hop is never intercepted, so the proxy asks about it when the page's `request`
// event names it as a redirect (background traffic of the browser, never named, is refused unasked).
/** Asks the user about an origin; resolves true when allowed. */
export type OriginAsker = (origin: string) => Promise<boolean>;

/** How long the proxy waits to hear that a request for an origin not yet allowed is a page's redirect. */
const REDIRECT_WAIT_MS = 2_000;

export class OriginQuestions {
  /** Origins the user let the browser reach in this thread. */
  readonly approved = new Set<string>();
  /** Origins a page was just redirected to, until the proxy sees the request. */
  private readonly redirects = new Set<string>();
  private readonly waiters = new Map<string, Set<(named: boolean) => void>>();
  /** The questions of the running browser call: declined origins are not asked about again in it. */
  private call: { ask: OriginAsker; declined: Set<string>; pending: Map<string, Promise<boolean>> } | null = null;

  /** `asker`: the running browser call's question (the same function for the whole call), or null. */
  constructor(private readonly asker: () => OriginAsker | null) {}

  approve(origin: string): void {
    this.approved.add(origin);
  }

  /**
   * Whether the page may reach `origin`: allowed already, or asked about now when a browser call runs (one
   * question per origin at a time).
   */
  allow(origin: string): Promise<boolean> {
    if (this.approved.has(origin)) return Promise.resolve(true);
    const ask = this.asker();
    if (ask === null) return Promise.resolve(false);
    if (this.call?.ask !== ask) this.call = { ask, declined: new Set(), pending: new Map() };
    const call = this.call;
    if (call.declined.has(origin)) return Promise.resolve(false);
    let answer = call.pending.get(origin);
    if (answer === undefined) {
      answer = ask(origin).then((allowed) => {
        if (allowed) this.approved.add(origin);
        else call.declined.add(origin);
        call.pending.delete(origin);
        return allowed;
      });
      call.pending.set(origin, answer);
    }
    return answer;
  }

  /** The proxy's request for `origin`, not yet allowed: asked about when it is a page's redirect. */
  async allowRedirect(origin: string): Promise<boolean> {
    if (!(await this.redirectedTo(origin))) return false;
    this.redirects.delete(origin);
    return this.allow(origin);
  }

  /** A page request that is a redirect's next hop to `origin` (not yet allowed). */
  redirected(origin: string): void {
    this.redirects.add(origin);
    if (this.redirects.size > 100) this.redirects.delete(this.redirects.values().next().value ?? '');
    for (const waiter of [...(this.waiters.get(origin) ?? [])]) waiter(true);
  }

  /**
   * Whether a page is being redirected to `origin` during a browser call. The page's `request` event and
   * the proxy's request race: one the event has not named yet is waited for, up to REDIRECT_WAIT_MS.
   */
  private redirectedTo(origin: string): Promise<boolean> {
    if (this.asker() === null) return Promise.resolve(false);
    if (this.redirects.has(origin)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiters = this.waiters.get(origin) ?? new Set<(named: boolean) => void>();
      this.waiters.set(origin, waiters);
      const done = (named: boolean): void => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiters.get(origin) === waiters) this.waiters.delete(origin);
        resolve(named);
      };
      const timer = setTimeout(() => done(false), REDIRECT_WAIT_MS);
      waiters.add(done);
    });
  }
}
