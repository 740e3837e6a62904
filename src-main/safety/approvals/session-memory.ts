// "Accept for session" memory of one thread: commands and file sets the user approved, so the same
// request is not asked again until the thread ends. Nothing here is persisted.
import { resolve } from 'node:path';
import { isInsidePath } from '../sandbox/writable-roots';

export interface CommandKey {
  /** The exact command string the model sent. */
  script: string;
  /** Absolute working directory it runs in. */
  cwd: string;
  /** Whether the approval was to run outside the sandbox. Default false. */
  unsandboxed?: boolean;
}

export class SessionApprovals {
  /** key → whether the approval covers running unsandboxed. */
  private readonly commands = new Map<string, boolean>();
  private readonly files = new Set<string>();
  private readonly roots = new Set<string>();

  approveCommand(key: CommandKey): void {
    const id = commandId(key);
    this.commands.set(id, (this.commands.get(id) ?? false) || key.unsandboxed === true);
  }

  /**
   * Whether this exact command in this cwd was approved for the session. An approval to run sandboxed
   * does not cover a request to run unsandboxed; the reverse holds.
   */
  isCommandApproved(key: CommandKey): boolean {
    const approvedUnsandboxed = this.commands.get(commandId(key));
    if (approvedUnsandboxed === undefined) return false;
    return approvedUnsandboxed || key.unsandboxed !== true;
  }

  /** Remembers a set of absolute file paths the user let a patch write. */
  approveFiles(paths: readonly string[]): void {
    for (const path of paths) this.files.add(resolve(path));
  }

  /** Remembers a folder the user granted patches write access to (a `grantRoot`). */
  grantRoot(root: string): void {
    this.roots.add(resolve(root));
  }

  /** Whether every path was approved before, or lies under a granted folder. False for no paths. */
  areFilesApproved(paths: readonly string[]): boolean {
    if (paths.length === 0) return false;
    return paths.every((path) => {
      const abs = resolve(path);
      return this.files.has(abs) || [...this.roots].some((root) => isInsidePath(abs, root));
    });
  }

  clear(): void {
    this.commands.clear();
    this.files.clear();
    this.roots.clear();
  }
}

function commandId(key: CommandKey): string {
  return JSON.stringify([resolve(key.cwd), key.script]);
}
