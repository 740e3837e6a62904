// The model client's first request loaded the OpenAI SDK (about 300 KB) and then the classes of Node's own
// `fetch` (undici, when the SDK first makes `Headers`; 22–28 ms of it alone on Node 24; the requests go
// over `node:http`, node-fetch.ts, which a host has mostly loaded already): in a host, one stretch of
// 60–70 ms in which every other thread's requests and events waited, and which the first turn of each
// start waited for too. A host does both ahead, when it is quiet (see app-host.ts), and a first request that
// comes before does them the same way (sdk-stream.ts): two stretches, with the event loop free between.

let warm: Promise<void> | null = null;

/** Loads the SDK, then (in a task of its own) fetch's classes and Node's HTTP client; once per process, again after a failure. */
export function warmModelClient(): Promise<void> {
  warm ??= (async () => {
    await import('openai');
    // A whole turn of the event loop between the two, I/O polled: an immediate queued from an immediate
    // runs in the next turn (one alone would run before the loop polls again, the two parts back to back).
    await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
    // Node loads undici on the first use of one of its fetch globals (the SDK's `Headers`, node-fetch's `Response`).
    new Headers();
    process.getBuiltinModule('node:http');
  })();
  warm.catch(() => (warm = null));
  return warm;
}
