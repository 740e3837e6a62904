// What a terminal tab says when its shell's `command/exec` fails: a shell that could not start, or, on an
// environment, one whose link dropped (the relay says so in the error's data, `WeftLinkDroppedData`): the
// shell had run there and ended with the link (or, started to outlive it, was not kept until it came back),
// which "could not start" would misstate.
import { WeftLinkDroppedData } from '../../src-preload/protocol';

export interface TerminalEnd {
  /** Written into the tab's terminal. */
  text: string;
  /** The environment whose link dropped; null: the shell could not start. */
  linkDropped: string | null;
}

/** `started`: the shell had written something (it ran). */
export function terminalEnd(error: unknown, started: boolean): TerminalEnd {
  const data = error instanceof Error && 'data' in error ? error.data : undefined;
  const dropped = WeftLinkDroppedData.safeParse(data);
  if (dropped.success) {
    const name = dropped.data.weftLinkDropped.environment;
    if (dropped.data.weftLinkDropped.notKept === true)
      return {
        text: `The link to ${name} dropped, and the shell there was not kept until it came back (Weft there restarted, or the link was down longer than its grace period). Open a new terminal.`,
        linkDropped: name,
      };
    const what = started ? `the shell there ended with it` : `the shell there was lost before it answered`;
    return {
      text: `The link to ${name} dropped: ${what}. Open a new terminal once ${name} is back.`,
      linkDropped: name,
    };
  }
  return {
    text: `Could not start the shell: ${error instanceof Error ? error.message : String(error)}`,
    linkDropped: null,
  };
}
