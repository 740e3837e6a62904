// A real tool context for tests that call tools directly: the same orchestrator and safety services as
// a session, with an explicit policy (by default full access and no asking, stated, never implied).
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AskForApproval, SandboxPolicy } from '../../src-preload/protocol';
import { RuleStore } from '../../src-main/safety/approvals/rules';
import { ToolOrchestrator } from '../../src-main/tools/orchestrator';
import { SafetyServices } from '../../src-main/tools/safety-services';
import type { CoreNotification, ToolContext } from '../../src-main/tools/types';

export interface TestToolContextOptions {
  cwd?: string;
  signal?: AbortSignal;
  approvalPolicy?: AskForApproval;
  sandboxPolicy?: SandboxPolicy;
  sendRequest?: ToolContext['sendRequest'];
  emitted?: CoreNotification[];
}

export function testToolContext(opts: TestToolContextOptions = {}): ToolContext {
  const emitted = opts.emitted ?? [];
  const rules = new RuleStore(join(tmpdir(), `weft-test-rules-${randomUUID()}`));
  return {
    threadId: 't',
    turnId: 'u',
    cwd: opts.cwd ?? '/',
    signal: opts.signal ?? new AbortController().signal,
    emit: (n) => void emitted.push(n),
    sendRequest: opts.sendRequest ?? (async () => ({ decision: 'decline' })),
    policy: {
      approvalPolicy: opts.approvalPolicy ?? 'never',
      sandboxPolicy: opts.sandboxPolicy ?? { type: 'dangerFullAccess' },
    },
    orchestrator: new ToolOrchestrator(new SafetyServices(rules)),
    env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
    cancelTurn: () => undefined,
  };
}
