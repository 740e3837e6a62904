// Setup file of the e2e tests (vitest runs it before each test file, also where files share a worker
// process): the headless Chromium that the file's tests share (chromium.ts `openSession`) ends after the
// file's last test, so no browser outlives the file that started it.
import { afterAll } from 'vitest';
import { closeSharedBrowser } from './chromium';

afterAll(closeSharedBrowser);
