// The project config prompt. A project's `.weft/config.toml` files can turn the sandbox off or start
// MCP servers, and the agent can write files in the project: Weft applies a file only once the person
// has trusted it with the contents it has. When the open project has files that wait (the project was
// never trusted, or a file appeared or changed since), this dialog says which and what each would set,
// and records the yes for exactly the contents shown. It looks again whenever a thread starts.
import { useCallback, useEffect, useId, useMemo, useRef, useState } from 'react';
import type { WeftProjectConfigFile, WeftProjectConfigListResult } from '../../src-preload/protocol';
import { Icon } from '../components/Icon';
import { useModal } from '../components/use-modal';
import { useController, useWeft } from '../store/app-context';
import { contentKey, statusLabel, waitingFiles } from '../store/project-config';

/** The first words of the explanation for a trusted project: what happened to the waiting files. */
function whatHappened(waiting: readonly WeftProjectConfigFile[]): string {
  const one = waiting.length === 1;
  const subject = one ? 'This file' : 'These files';
  if (waiting.every((f) => f.status === 'changed')) return `${subject} changed after you trusted`;
  if (waiting.every((f) => f.status === 'new')) return `${subject} appeared after you trusted`;
  if (waiting.every((f) => f.status === 'unverified'))
    return `Weft did not record the contents of ${one ? 'this file' : 'these files'} when you trusted`;
  return `${subject} appeared or changed after you trusted`;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function ProjectConfigPrompt({ cwd }: { cwd: string }) {
  const controller = useController();
  const open = useWeft((s) => s.ui.connection.phase === 'open');
  // Kept with the folder it was listed for: a listing of the previous project is never shown.
  const [listing, setListing] = useState<{ cwd: string; result: WeftProjectConfigListResult | null } | null>(null);
  const [putOff, setPutOff] = useState<ReadonlySet<string>>(() => new Set());

  const list = useCallback(
    () => controller.request('weft/projectConfig/list', { cwd }).catch(() => null),
    [controller, cwd],
  );
  const refresh = useCallback(async (): Promise<void> => {
    const result = await list();
    setListing({ cwd, result });
  }, [list, cwd]);

  useEffect(() => {
    if (!open) return;
    let current = true;
    void list().then((result) => current && setListing({ cwd, result }));
    return () => {
      current = false;
    };
  }, [open, list, cwd]);

  // A thread that starts reads the project config again: so does the prompt (a file the agent wrote
  // in an earlier thread shows up here before it could apply).
  useEffect(
    () =>
      controller.onNotification((n) => {
        if (n.method === 'thread/started') void refresh();
      }),
    [controller, refresh],
  );

  const listed = listing?.cwd === cwd ? listing.result : null;
  const waiting = useMemo(() => waitingFiles(listed, putOff), [listed, putOff]);
  if (listed === null || waiting.length === 0) return null;
  return (
    <PromptDialog
      listed={listed}
      waiting={waiting}
      cwd={cwd}
      onListed={(result) => setListing({ cwd, result })}
      onPutOff={() => setPutOff((keys) => new Set([...keys, ...waiting.map(contentKey)]))}
      refresh={refresh}
    />
  );
}

function PromptDialog({
  listed,
  waiting,
  cwd,
  onListed,
  onPutOff,
  refresh,
}: {
  listed: WeftProjectConfigListResult;
  waiting: WeftProjectConfigFile[];
  cwd: string;
  onListed: (listed: WeftProjectConfigListResult) => void;
  onPutOff: () => void;
  refresh: () => Promise<void>;
}) {
  const controller = useController();
  const titleId = useId();
  const dialog = useRef<HTMLElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useModal(dialog, onPutOff);

  const trust = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const files = waiting.map((file) => ({ path: file.path, sha256: file.sha256 }));
      onListed(await controller.request('weft/projectConfig/trust', { cwd, files }));
      void controller.reloadDefaults();
    } catch (e) {
      // Most likely a file changed since it was shown: show it as it is now.
      setError(messageOf(e));
      setBusy(false);
      await refresh();
    }
  };

  const distrust = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await controller.request('config/value/write', {
        keyPath: `projects.${JSON.stringify(listed.root)}.trust_level`,
        value: 'untrusted',
      });
      await refresh();
    } catch (e) {
      setError(messageOf(e));
      setBusy(false);
    }
  };

  const undecided = listed.trustLevel === null;
  const them = waiting.length === 1 ? 'it' : 'them';
  return (
    <div className="overlay overlay-center" onMouseDown={(e) => e.target === e.currentTarget && onPutOff()}>
      <section
        className="review project-config"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        ref={dialog}
      >
        <header className="review-head">
          <Icon name="shield" />
          <h2 id={titleId}>{undecided ? "Trust this project's config?" : 'Project config is waiting for you'}</h2>
          <span className="spacer" />
          <button type="button" className="icon-button" aria-label="Close" title="Not now" onClick={onPutOff}>
            <Icon name="x" />
          </button>
        </header>
        <div className="review-reason">
          {undecided ? (
            <span>
              <strong>{listed.root}</strong> has Weft config that changes how this project runs: it can turn the sandbox
              off, change when you are asked, or start MCP servers (commands that run outside the sandbox).
            </span>
          ) : (
            <span>
              {whatHappened(waiting)} <strong>{listed.root}</strong>. The agent can write files in the project, so Weft
              does not apply {them} until you have read {them}.
            </span>
          )}
        </div>
        <div className="review-body">
          {waiting.map((file) => (
            <FileSettings key={file.path} file={file} trustLevel={listed.trustLevel} />
          ))}
        </div>
        <footer className="review-foot">
          {error !== null ? (
            <span className="settings-status-error" role="alert">
              {error}
            </span>
          ) : (
            <span className="muted">Applies to threads started from now on; open threads keep what they have.</span>
          )}
          <span className="spacer" />
          <button type="button" className="btn" data-autofocus disabled={busy} onClick={onPutOff}>
            Not now
          </button>
          {undecided && (
            <button type="button" className="btn btn-danger-ghost" disabled={busy} onClick={() => void distrust()}>
              Don&apos;t trust
            </button>
          )}
          <button type="button" className="btn btn-primary" disabled={busy} onClick={() => void trust()}>
            {undecided ? 'Trust and apply' : `Apply ${waiting.length === 1 ? 'this file' : 'these files'}`}
          </button>
        </footer>
      </section>
    </div>
  );
}

function FileSettings({
  file,
  trustLevel,
}: {
  file: WeftProjectConfigFile;
  trustLevel: WeftProjectConfigListResult['trustLevel'];
}) {
  return (
    <section className="review-file" aria-label={file.relativePath}>
      <header className="review-file-head">
        <Icon name="file" size={14} />
        <span className="file-path" title={file.path}>
          {file.relativePath}
        </span>
        <span className={`project-config-status is-${file.status}`}>{statusLabel(file, trustLevel)}</span>
      </header>
      {file.error !== null ? (
        <p className="project-config-error" role="alert">
          It cannot be read: {file.error}
        </p>
      ) : file.settings.length === 0 ? (
        <p className="muted project-config-empty">It sets nothing.</p>
      ) : (
        <table className="project-config-settings">
          <tbody>
            {file.settings.map((setting) => (
              <tr key={setting.key} className={setting.steersExecution ? 'is-steering' : undefined}>
                <th scope="row">
                  <code>{setting.key}</code>
                </th>
                <td>
                  <code>{setting.value}</code>
                </td>
                <td className="project-config-flag">
                  {setting.steersExecution && (
                    <span title="Decides what runs, how it is sandboxed, or where requests go">
                      <Icon name="alert" size={12} /> steers execution
                    </span>
                  )}
                </td>
              </tr>
            ))}
            {file.moreSettings > 0 && (
              <tr>
                <td colSpan={3} className="muted">
                  … and {file.moreSettings} more
                </td>
              </tr>
            )}
          </tbody>
        </table>
      )}
    </section>
  );
}
