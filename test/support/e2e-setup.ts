// Setup file of the e2e tests (vitest runs it before each test file, also where files share a worker
// process). The headless Chromium of chromium.ts `openSession` is shared by every file of the worker and
// ends with it; each test has a browser context of its own, closed when the test finishes (weft-serve.ts
// `startE2e`). A file fails when it leaves a context open, so no test's page outlives its file.
import { afterAll, expect } from 'vitest';
import { openSessionCount } from './chromium';

afterAll(async () => {
  expect(await openSessionCount(), 'browser contexts the test file left open').toBe(0);
});
