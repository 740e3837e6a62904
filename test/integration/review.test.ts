// `review/start` through the real app host: Weft computes each target's diff (uncommitted changes, a base
// branch, a commit, custom instructions) and sends it with the project's AGENTS.md in one request; the
// reviewer's JSON answer comes back as findings on an `exitedReviewMode` item, and later turns know of it.
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeGitRepo, type GitRepo } from '../support/git-repo';
import { startInProcessHost, type InProcessHost } from '../support/in-process-host';
import { startMockResponsesServer, type MockResponsesServer } from '../support/mock-responses-server';
import { answerTurn } from '../support/sse';
import { waitFor } from '../support/wait';
import { makeWeftHome, type WeftHome } from '../support/workspace';

let app: InProcessHost | undefined;
let repo: GitRepo | undefined;
let home: WeftHome | undefined;
let mock: MockResponsesServer | undefined;

afterEach(async () => {
  await app?.close();
  await repo?.cleanup();
  await home?.cleanup();
  await mock?.close();
  app = repo = home = mock = undefined;
});

async function setUp(files: Record<string, string>) {
  const server = await startMockResponsesServer();
  mock = server;
  home = await makeWeftHome(
    `model = "mock-model"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "Mock"\nbase_url = "${server.url}"\nenv_key = "MOCK_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\n`,
  );
  const r = await makeGitRepo(files);
  repo = r;
  const host = await startInProcessHost({
    weftHome: home.dir,
    cwd: r.dir,
    env: { ...process.env, WEFT_HOME: home.dir, MOCK_API_KEY: 'k' },
  });
  app = host;
  const started = await host.client.call('thread/start', { cwd: r.dir });
  const threadId = (started.result as { thread: { id: string } }).thread.id;
  return { host, repo: r, server, threadId };
}

interface Item {
  type: string;
  id: string;
  review?: string;
  weftReview?: {
    findings: {
      title: string;
      path: string;
      lineStart: number;
      lineEnd: number;
      priority: number;
      confidence: number;
    }[];
    overallCorrectness: string;
  };
}

function turnCompleted(host: InProcessHost, turnId: string): Promise<unknown> {
  const done = (m: object): boolean =>
    'method' in m &&
    m.method === 'turn/completed' &&
    'params' in m &&
    JSON.stringify(m.params).includes(`"id":"${turnId}"`);
  if (host.client.received.some(done)) return Promise.resolve();
  return waitFor(host.client.subscribe, done, { label: `turn ${turnId} completed` });
}

async function reviewTurn(host: InProcessHost, threadId: string, target: unknown) {
  const reply = await host.client.call('review/start', { threadId, target });
  if (reply.error) throw new Error(reply.error.message);
  const { turn, reviewThreadId } = reply.result as { turn: { id: string }; reviewThreadId: string };
  await turnCompleted(host, turn.id);
  const items = host.client
    .notifications('item/completed')
    .filter((n) => n.params['turnId'] === turn.id)
    .map((n) => n.params['item'] as Item);
  return { turn, reviewThreadId, items };
}

describe('review/start', () => {
  it(
    'reviews the uncommitted changes: diff and AGENTS.md in one request, findings as an exitedReviewMode item',
    { timeout: 30_000 },
    async () => {
      const {
        host,
        repo: r,
        server,
        threadId,
      } = await setUp({
        'AGENTS.md': 'Reviews: flag every division without a zero check.\n',
        'calc.ts': 'export const f = (a: number) => a;\n',
      });
      await writeFile(r.path('calc.ts'), 'export const f = (a: number, b: number) => a / b;\n');
      await writeFile(r.path('extra.ts'), 'export const g = 1;\n');
      const json = {
        findings: [
          {
            title: '[P3] Name is vague',
            body: 'Call it ratio.',
            confidence_score: 0.4,
            priority: 3,
            code_location: { absolute_file_path: r.path('calc.ts'), line_range: { start: 1, end: 1 } },
          },
          {
            title: '[P1] Division by zero',
            body: 'b may be 0.',
            confidence_score: 0.9,
            priority: 1,
            code_location: { absolute_file_path: r.path('calc.ts'), line_range: { start: 1, end: 1 } },
          },
        ],
        overall_correctness: 'patch is incorrect',
        overall_explanation: 'It divides by zero.',
        overall_confidence_score: 0.8,
      };
      server.enqueue(answerTurn(JSON.stringify(json)));
      const { items, reviewThreadId } = await reviewTurn(host, threadId, { type: 'uncommittedChanges' });
      expect(reviewThreadId).toBe(threadId);

      const body = (await server.waitForRequest(1)).body as {
        instructions: string;
        input: unknown[];
        tools?: unknown[];
        text?: { format?: { type: string } };
      };
      const sent = JSON.stringify(body.input);
      expect(sent).toContain('+export const f = (a: number, b: number) => a / b;');
      expect(sent).toContain('+export const g = 1;');
      expect(sent).toContain('flag every division without a zero check');
      expect(body.input).toHaveLength(1);
      expect(body.tools ?? []).toEqual([]);
      expect(body.instructions).toContain('[P0]');
      expect(body.text?.format?.type).toBe('json_schema');

      expect(items.map((i) => i.type)).toEqual(['enteredReviewMode', 'exitedReviewMode']);
      expect(items[0]?.review).toBe('the uncommitted changes');
      const exited = items[1];
      expect(exited?.weftReview).toEqual({
        findings: [
          {
            title: '[P1] Division by zero',
            body: 'b may be 0.',
            priority: 1,
            confidence: 0.9,
            path: 'calc.ts',
            lineStart: 1,
            lineEnd: 1,
          },
          {
            title: '[P3] Name is vague',
            body: 'Call it ratio.',
            priority: 3,
            confidence: 0.4,
            path: 'calc.ts',
            lineStart: 1,
            lineEnd: 1,
          },
        ],
        overallCorrectness: 'patch is incorrect',
        overallExplanation: 'It divides by zero.',
        overallConfidence: 0.8,
      });
      expect(exited?.review).toContain('- [P1] Division by zero — calc.ts:1 (confidence 0.90)');

      // The next turn's history carries the review's result.
      server.enqueue(answerTurn('Fixed.'));
      const next = await host.client.call('turn/start', { threadId, input: [{ type: 'text', text: 'Fix the P1' }] });
      await turnCompleted(host, (next.result as { turn: { id: string } }).turn.id);
      expect(JSON.stringify((await server.waitForRequest(2)).body)).toContain('Division by zero');

      const thread = await host.client.call('thread/read', { threadId, includeTurns: true });
      const turns = (thread.result as { thread: { turns: { items: Item[] }[] } }).thread.turns;
      expect(turns[0]?.items.map((i) => i.type)).toEqual(['enteredReviewMode', 'exitedReviewMode']);
      expect(turns[0]?.items[1]?.weftReview?.findings).toHaveLength(2);
    },
  );

  it(
    'sends a commit, a base branch and custom instructions, and refuses an empty target',
    { timeout: 30_000 },
    async () => {
      const { host, repo: r, server, threadId } = await setUp({ 'a.txt': 'one\n' });
      await r.git('checkout', '--quiet', '-b', 'topic');
      await writeFile(r.path('a.txt'), 'one\ntwo\n');
      await r.git('commit', '--quiet', '-am', 'Add two');
      const sha = (await r.git('rev-parse', 'HEAD')).trim();
      const empty = await host.client.call('review/start', { threadId, target: { type: 'uncommittedChanges' } });
      expect(empty.error).toMatchObject({ code: -32600, message: 'there are no uncommitted changes to review' });

      const none = JSON.stringify({
        findings: [],
        overall_correctness: 'patch is correct',
        overall_explanation: 'Fine.',
        overall_confidence_score: 0.9,
      });
      server.enqueue(answerTurn(none));
      const commit = await reviewTurn(host, threadId, { type: 'commit', sha, title: 'Add two' });
      expect(commit.items[0]?.review).toBe(`commit ${sha.slice(0, 12)}: Add two`);
      expect(commit.items[1]?.review).toContain('No findings.');
      const commitSent = JSON.stringify((await server.waitForRequest(1)).body);
      expect(commitSent).toContain('+two');
      expect(commitSent).toContain('Add two');

      server.enqueue(answerTurn(none));
      host.client.received.splice(0);
      const base = await reviewTurn(host, threadId, { type: 'baseBranch', branch: 'main' });
      expect(base.items[0]?.review).toMatch(/^the changes against main \(merge base [0-9a-f]{12}\)$/);
      expect(JSON.stringify((await server.waitForRequest(2)).body)).toContain('+two');

      server.enqueue(answerTurn('not json at all'));
      host.client.received.splice(0);
      const custom = await reviewTurn(host, threadId, { type: 'custom', instructions: 'Check the README for typos' });
      expect(JSON.stringify((await server.waitForRequest(3)).body)).toContain('Check the README for typos');
      expect(custom.items[1]).toMatchObject({ type: 'exitedReviewMode', review: 'not json at all' });
      expect(custom.items[1]?.weftReview).toBeUndefined();
    },
  );
});

const WEFT = resolve(__dirname, '../../bin/weft.js');

function runWeft(
  args: string[],
  cwd: string,
  weftHome: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done, reject) => {
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '',
      WEFT_HOME: weftHome,
      MOCK_API_KEY: 'k',
    };
    const child = spawn(process.execPath, [WEFT, ...args], { cwd, env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end();
  });
}

describe('weft review', () => {
  it('prints the findings of a review of a commit, as text and as JSON', { timeout: 60_000 }, async () => {
    const { repo: r, server } = await setUp({ 'a.txt': 'one\n' });
    await writeFile(r.path('a.txt'), 'one\ntwo\n');
    await r.git('commit', '--quiet', '-am', 'Add two');
    const sha = (await r.git('rev-parse', 'HEAD')).trim();
    const json = {
      findings: [
        {
          title: '[P2] Two is spelled out',
          body: 'Use 2.',
          confidence_score: 0.7,
          priority: 2,
          code_location: { absolute_file_path: r.path('a.txt'), line_range: { start: 2, end: 2 } },
        },
      ],
      overall_correctness: 'patch is correct',
      overall_explanation: 'Minor.',
      overall_confidence_score: 0.7,
    };
    server.enqueueMany([answerTurn(JSON.stringify(json)), answerTurn(JSON.stringify(json))]);
    const text = await runWeft(['review', '--commit', sha], r.dir, home?.dir ?? '');
    expect(text.stderr).toContain(`Reviewing commit ${sha.slice(0, 12)}: Add two`);
    expect({ code: text.code, stdout: text.stdout }).toEqual({
      code: 0,
      stdout: '- [P2] Two is spelled out — a.txt:2 (confidence 0.70)\n  Use 2.\n\npatch is correct: Minor.\n',
    });
    expect(JSON.stringify((await server.waitForRequest(1)).body)).toContain('+two');

    const asJson = await runWeft(['review', '--commit', sha, '--json'], r.dir, home?.dir ?? '');
    expect(asJson.code).toBe(0);
    expect(JSON.parse(asJson.stdout)).toMatchObject({
      findings: [{ path: 'a.txt', lineStart: 2, priority: 2 }],
      overallCorrectness: 'patch is correct',
    });

    const nothing = await runWeft(['review', '--uncommitted'], r.dir, home?.dir ?? '');
    expect({ code: nothing.code, stderr: nothing.stderr.trim() }).toEqual({
      code: 1,
      stderr: 'weft review: there are no uncommitted changes to review',
    });
    const bad = await runWeft(['review', '--base', 'main', '--commit', sha], r.dir, home?.dir ?? '');
    expect(bad.code).toBe(2);
  });
});
