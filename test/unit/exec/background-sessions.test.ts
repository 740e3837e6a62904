// The exec engine's account of commands left running after their call, for the checkpoints: each names
// the turn that started it, and stays listed until a look after its end has seen it.
import { afterAll, describe, expect, it } from 'vitest';
import { ExecSessionManager } from '../../../src-main/tools/exec';
import { ctx, scratchDir } from './helpers';

const workdir = scratchDir();
const manager = new ExecSessionManager();
afterAll(() => manager.closeAll('test finished'));

describe('background sessions', () => {
  it('lists commands kept running with their turn, until they ended and were seen', async () => {
    await manager.exec({ cmd: 'true', workdir, login: false, turnId: 'turn-0' }, ctx());
    const kept = await manager.exec(
      { cmd: 'read line', workdir, login: false, tty: true, yieldTimeMs: 250, turnId: 'turn-1' },
      ctx(),
    );
    expect(kept.sessionId).not.toBeNull();
    const running = { sessionId: kept.sessionId, turnId: 'turn-1', command: 'read line', exited: false };
    expect(manager.backgroundSessions()).toEqual([running]);
    // A command still running is not forgotten.
    manager.forgetExited([running.sessionId ?? -1]);
    expect(manager.backgroundSessions()).toEqual([running]);

    const polled = await manager.writeStdin(
      { sessionId: kept.sessionId ?? -1, chars: 'bye\n', yieldTimeMs: 2000 },
      ctx(),
    );
    expect([polled.exitCode, polled.turnId]).toEqual([0, 'turn-1']);
    expect(manager.backgroundSessions()).toEqual([{ ...running, exited: true }]);
    manager.forgetExited([running.sessionId ?? -1]);
    expect(manager.backgroundSessions()).toEqual([]);
  });
});
