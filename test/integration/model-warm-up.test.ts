// A host loads the model client (the OpenAI SDK and Node’s fetch: a 60–70 ms stretch of the main thread)
// when it is quiet, ahead of the first turn, instead of inside the first model request where every other
// thread's requests waited behind it.
import { describe, expect, it } from 'vitest';
import { warmModelClient } from '../../src-main/model/warm';
import { hostPerTest, ok } from '../support/in-process-host';

const fixture = hostPerTest({ 'notes.txt': 'one\n' }, 'model = "mock-model"\n');

describe('loading the model client ahead', () => {
  it('happens once the host has had no request for the quiet time, and once', async () => {
    const QUIET_MS = 150;
    const calls: number[] = [];
    let warmed: () => void = () => undefined;
    const done = new Promise<void>((resolve) => (warmed = resolve));
    const app = await fixture.start({
      warmUp: {
        afterQuietMs: QUIET_MS,
        warm: () => {
          calls.push(performance.now());
          warmed();
          return Promise.resolve();
        },
      },
    });
    let lastRequest = 0;
    for (let i = 0; i < 12; i++) {
      lastRequest = performance.now();
      await ok(app.client, 'thread/list', { limit: 5 });
    }
    await done;
    expect(calls).toHaveLength(1);
    // Each request started the quiet over: the load came a whole quiet time after the last one was sent.
    expect((calls[0] ?? 0) - lastRequest).toBeGreaterThanOrEqual(QUIET_MS - 1);
    // Requests after it do not load it again.
    await ok(app.client, 'thread/list', { limit: 5 });
    expect(calls).toHaveLength(1);
  });

  it('loads the SDK and Node’s fetch once: a second call shares the first', async () => {
    const first = warmModelClient();
    expect(warmModelClient()).toBe(first);
    await expect(first).resolves.toBeUndefined();
    expect(warmModelClient()).toBe(first);
  });
});
