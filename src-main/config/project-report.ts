/**
 * What people are told about project config that did not apply: which file, why, and what it would
 * set, and MCP servers a read-only session left out. Shared by `weft exec`, `weft config` and the app
 * server's `warning` notifications, so every face says the same.
 */
import type { ProjectTrust } from './project';
import type { ProjectConfigFile } from './project-files';
import type { HeldBackMcpServer } from './project-mcp';
import { formatKeyPath } from './toml-keys';

/** Files of a trusted project that wait for the user's yes: new, changed, or trusted before contents were recorded. */
export function pendingFiles(trust: ProjectTrust): ProjectConfigFile[] {
  if (trust.trusted !== true) return [];
  return trust.files.filter((f) => f.status === 'new' || f.status === 'changed' || f.status === 'unverified');
}

function why(file: ProjectConfigFile, root: string): string {
  switch (file.status) {
    case 'changed':
      return `${file.path} changed since you trusted it`;
    case 'unverified':
      return `${file.path} was trusted before Weft recorded the contents of the files it trusts; confirm it once`;
    default:
      return `${file.path} appeared after you trusted ${root}`;
  }
}

/** What a file sets, one indented `key = value` a line. */
export function settingLines(file: ProjectConfigFile): string[] {
  return [
    ...file.settings.map((s) => `    ${s.key} = ${s.value}`),
    ...(file.moreSettings > 0 ? [`    … and ${file.moreSettings} more`] : []),
  ];
}

/** One file: the reason on the first line, then what it would set, one key a line. */
export function describePendingFile(file: ProjectConfigFile, root: string): string[] {
  if (file.error !== null) return [`project config not applied: ${why(file, root)}. It cannot be read: ${file.error}`];
  if (file.settings.length === 0) return [`project config not applied: ${why(file, root)}. It sets nothing.`];
  return [`project config not applied: ${why(file, root)}. It would set:`, ...settingLines(file)];
}

/** How to apply `count` held-back files of a session in `cwd` from a shell. */
function trustCommandHint(count: number, cwd: string): string {
  const them = count === 1 ? 'it' : 'them';
  return `to apply ${them}, review ${them}, then run \`weft config trust ${cwd}\``;
}

/**
 * The lines a command-line run prints on stderr about project config that did not apply: held-back
 * files of a trusted project with what they would set, or a note that the project is not trusted.
 */
export function projectConfigNotes(trust: ProjectTrust, cwd: string): string[] {
  const pending = pendingFiles(trust);
  if (pending.length > 0) {
    const [first = '', ...rest] = pending.flatMap((file) =>
      describePendingFile(file, trust.root).map((line, i) => (i === 0 ? `weft: warning: ${line}` : line)),
    );
    return [first, ...rest, `weft: ${trustCommandHint(pending.length, cwd)}`];
  }
  const skipped = trust.skippedFiles;
  if (skipped.length === 0 || trust.trusted === true) return [];
  const state = trust.trusted === null ? 'has not been trusted yet' : 'is not trusted';
  const one = skipped.length === 1;
  return [
    `weft: note: the project ${trust.root} ${state}, so ${skipped.join(', ')} ${one ? 'was' : 'were'} not applied; run \`weft config trust ${trust.root}\` to apply ${one ? 'it' : 'them'}`,
  ];
}

/** The app server's warning about held-back files of a thread in `cwd` (one message, several lines). */
export function pendingFilesWarning(trust: ProjectTrust, cwd: string): string | null {
  const files = pendingFiles(trust);
  if (files.length === 0) return null;
  const them = files.length === 1 ? 'it' : 'them';
  return [
    ...files.flatMap((file) => describePendingFile(file, trust.root)),
    `To apply ${them}, review ${them} and trust ${them} in Weft's project config prompt, or run \`weft config trust ${cwd}\`.`,
  ].join('\n');
}

/** Why a project MCP server was not started, and how to start it. */
export function heldBackMcpMessage(server: HeldBackMcpServer): string {
  const key = formatKeyPath(['mcp_servers', server.name, 'enabled']);
  return `MCP server "${server.name}" (set in ${server.file}) was not started: this session asked for a read-only sandbox, and a project's MCP servers run outside it. To start it anyway, set ${key} = true for the session (-c ${key}=true)`;
}
