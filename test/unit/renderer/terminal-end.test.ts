import { describe, expect, it } from 'vitest';
import { RpcError } from '../../../src-renderer/client/types';
import { terminalEnd } from '../../../src-renderer/views/terminal-end';

const dropped = (): RpcError =>
  new RpcError(
    'command/exec',
    -32603,
    'the link to environment "box" closed: sh was killed; "command/exec" got no answer (it may have run on "box")',
    { weftLinkDropped: { environment: 'box' } },
  );

describe('what a terminal tab says when its shell’s request fails', () => {
  it('says the link to the environment dropped and the shell there ended, not that it could not start', () => {
    expect(terminalEnd(dropped(), true)).toEqual({
      text: 'The link to box dropped: the shell there ended with it. Open a new terminal once box is back.',
      linkDropped: 'box',
    });
    expect(terminalEnd(dropped(), false).text).toBe(
      'The link to box dropped: the shell there was lost before it answered. Open a new terminal once box is back.',
    );
  });

  it('says when the shell there was not kept until the link came back', () => {
    const notKept = new RpcError(
      'command/exec',
      -32603,
      'the link to environment "box" closed: sh was killed; terminal-1-1 there was not kept for the reconnect: …',
      { weftLinkDropped: { environment: 'box', notKept: true } },
    );
    expect(terminalEnd(notKept, true)).toEqual({
      text: 'The link to box dropped, and the shell there was not kept until it came back (Weft there restarted, or the link was down longer than its grace period). Open a new terminal.',
      linkDropped: 'box',
    });
  });

  it('says the shell could not start for any other failure', () => {
    expect(terminalEnd(new RpcError('command/exec', -32602, 'cwd: no such folder /x'), false)).toEqual({
      text: 'Could not start the shell: cwd: no such folder /x',
      linkDropped: null,
    });
  });
});
