// MCP servers: each server of the open thread (or, when it runs none, of config.toml, with a button that
// starts them in the thread) with its state, its tools, what it printed at its last start, and
// a switch that writes `enabled` to config.toml and restarts the servers (`config/mcpServer/reload`). A
// server reached by URL that wants a sign-in gets a "Sign in" button: `mcpServer/oauth/login` gives the
// page to open in the browser, and `mcpServer/oauthLogin/completed` says how it went. For a project on an
// environment, the servers are those of its config there (its threads run them there); a sign-in there
// would come back to a listener on that machine, which this browser cannot reach, so the section names
// the command to run there instead.
import { useCallback, useEffect, useId, useState } from 'react';
import type { Ref } from 'react';
import type { JsonValue, McpServerStatus } from '../../../src-preload/protocol';
import { useController, useWeft } from '../../store/app-context';
import { failureText, SectionHeading, useSettingsPlace } from './settings-place';

const STATE_LABELS: Record<string, string> = {
  connected: 'Running',
  starting: 'Starting…',
  failed: 'Failed',
  cancelled: 'Stopped',
  disabled: 'Disabled',
  notStarted: 'Not started',
  authenticationRequired: 'Needs sign-in',
};

function stateOf(server: McpServerStatus): string {
  return server.weftEnabled === false ? 'disabled' : (server.runtimeStatus ?? 'notStarted');
}

function keyPathFor(name: string): string {
  return /^[A-Za-z0-9_-]+$/.test(name) ? `mcp_servers.${name}.enabled` : `mcp_servers.${JSON.stringify(name)}.enabled`;
}

/** One resource or template: its name and URI (both as the server gave them). */
function resourceLine(entry: JsonValue, uriKey: 'uri' | 'uriTemplate') {
  const record = entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? entry : {};
  const name = typeof record['name'] === 'string' ? record['name'] : '';
  const uri = typeof record[uriKey] === 'string' ? record[uriKey] : '';
  return (
    <>
      <span className="mcp-resource-name">{name}</span> <code className="muted small">{uri}</code>
    </>
  );
}

export function McpSection({ ref }: { ref?: Ref<HTMLElement> }) {
  const controller = useController();
  const threadId = useWeft((s) => s.ui.activeThreadId);
  const place = useSettingsPlace();
  const [servers, setServers] = useState<McpServerStatus[] | null>(null);
  /** The list is config.toml's, not the open thread's: the thread runs none of them (it started before). */
  const [notInThread, setNotInThread] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  /** The sign-in in progress: which server, and the page the browser should show. */
  const [signIn, setSignIn] = useState<{ name: string; url: string | null } | null>(null);
  const [signInError, setSignInError] = useState<{ name: string; message: string } | null>(null);
  const titleId = useId();

  const load = useCallback(async () => {
    try {
      // The open thread's servers when it has any; otherwise (no thread, or one started before the servers
      // were added to config.toml) the configured servers are probed.
      const withThread =
        threadId === null ? null : await controller.request('mcpServerStatus/list', { threadId }).catch(() => null);
      if (withThread !== null && withThread.data.length > 0) {
        setServers(withThread.data);
        setNotInThread(false);
      } else {
        // The project shown: its own trusted config may add servers.
        const configured = await controller.request('mcpServerStatus/list', { weftCwd: place.folder, ...place.on });
        setServers(configured.data);
        setNotInThread(withThread !== null && configured.data.length > 0);
      }
      setError(null);
    } catch (e) {
      setError(failureText(place, e, 'Could not list the MCP servers'));
    }
  }, [controller, threadId, place]);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- load() sets state only after its await (react/react#34905)
    void load();
  }, [load]);

  // The thread's servers change state as they start (after "Start in this thread", an Enabled switch):
  // the list follows.
  const following = threadId !== null && !notInThread;
  useEffect(() => {
    if (!following) return;
    return controller.onNotification((n) => {
      if (n.method === 'mcpServer/startupStatus/updated' && n.params.threadId === threadId) void load();
    });
  }, [controller, following, threadId, load]);

  const signingIn = signIn?.name ?? null;
  useEffect(() => {
    if (signingIn === null) return;
    return controller.onNotification((n) => {
      if (n.method !== 'mcpServer/oauthLogin/completed' || n.params.name !== signingIn) return;
      setSignIn(null);
      if (!n.params.success)
        setSignInError({ name: signingIn, message: `Sign-in failed: ${n.params.error ?? 'unknown error'}` });
      void load();
    });
  }, [controller, signingIn, load]);

  const startSignIn = async (server: McpServerStatus): Promise<void> => {
    setSignInError(null);
    setSignIn({ name: server.name, url: null });
    try {
      const { authorizationUrl } = await controller.request('mcpServer/oauth/login', { name: server.name });
      if (authorizationUrl !== null) {
        // In the desktop app this opens the system browser; served, a new tab. The link stays in case it was blocked.
        window.open(authorizationUrl, '_blank', 'noopener,noreferrer');
        setSignIn((s) => (s?.name === server.name ? { name: server.name, url: authorizationUrl } : s));
      }
    } catch (e) {
      setSignIn(null);
      setSignInError({ name: server.name, message: e instanceof Error ? e.message : String(e) });
    }
  };

  const setEnabled = async (server: McpServerStatus, enabled: boolean): Promise<void> => {
    setBusy(true);
    try {
      await controller.request('config/value/write', { keyPath: keyPathFor(server.name), value: enabled, ...place.on });
      await controller.request('config/mcpServer/reload', { ...place.on });
      setError(null);
    } catch (e) {
      setError(failureText(place, e, 'Not saved'));
    }
    await load();
    setBusy(false);
  };

  const startInThread = async (): Promise<void> => {
    setBusy(true);
    try {
      await controller.request('config/mcpServer/reload', { ...place.on });
      setError(null);
    } catch (e) {
      setError(failureText(place, e, 'Not started'));
    }
    await load();
    setBusy(false);
  };

  return (
    <section className="settings-section" aria-labelledby={titleId} ref={ref}>
      <SectionHeading id={titleId}>MCP servers</SectionHeading>
      {servers === null && error === null && <p className="muted small">Starting the configured servers…</p>}
      {notInThread && (
        <p className="settings-note" role="note">
          <span>
            Configured in config.toml, but not running in this thread: it started before they were added. New threads
            start them.
          </span>
          <button type="button" className="btn btn-small" disabled={busy} onClick={() => void startInThread()}>
            Start in this thread
          </button>
        </p>
      )}
      {servers !== null && servers.length === 0 && (
        <p className="muted small">
          None configured. Add one with <code>weft mcp add NAME -- COMMAND</code> or an <code>[mcp_servers.NAME]</code>{' '}
          table in config.toml.
        </p>
      )}
      {servers !== null && servers.length > 0 && (
        <ul className="mcp-servers" aria-labelledby={titleId}>
          {servers.map((server) => {
            const state = stateOf(server);
            const tools = server.weftVisibleTools ?? Object.keys(server.tools);
            return (
              <li key={server.name} className="mcp-server" aria-label={`MCP server ${server.name}`}>
                <div className="mcp-server-main">
                  <strong className="mcp-server-name">{server.name}</strong>
                  <span className={`mcp-state mcp-state-${state}`}>{STATE_LABELS[state] ?? state}</span>
                  <span className="muted small">
                    {server.weftTransport === 'http' ? (server.httpOrigin ?? 'HTTP') : 'stdio'}
                  </span>
                  <label className="settings-check mcp-enabled">
                    <input
                      type="checkbox"
                      checked={server.weftEnabled !== false}
                      disabled={busy}
                      onChange={(e) => void setEnabled(server, e.currentTarget.checked)}
                    />
                    Enabled
                  </label>
                </div>
                {server.weftError && <p className="settings-status settings-status-error">{server.weftError}</p>}
                {server.weftTransport === 'http' &&
                  (state === 'authenticationRequired' || server.authStatus === 'notLoggedIn') &&
                  place.environment !== null && (
                    <p className="muted small">
                      Sign in on {place.environment}: run <code>weft mcp login {server.name}</code> there.
                    </p>
                  )}
                {server.weftTransport === 'http' &&
                  (state === 'authenticationRequired' || server.authStatus === 'notLoggedIn') &&
                  place.environment === null && (
                    <div className="mcp-sign-in">
                      <button
                        type="button"
                        className="btn"
                        disabled={signIn !== null}
                        onClick={() => void startSignIn(server)}
                      >
                        Sign in
                      </button>
                      {signIn?.name === server.name && (
                        <span className="muted small" role="status">
                          Waiting for the sign-in in your browser…{' '}
                          {signIn.url !== null && (
                            <a href={signIn.url} target="_blank" rel="noopener noreferrer">
                              Open the sign-in page
                            </a>
                          )}
                        </span>
                      )}
                    </div>
                  )}
                {signInError?.name === server.name && (
                  <p className="settings-status settings-status-error" role="alert">
                    {signInError.message}
                  </p>
                )}
                {tools.length > 0 && (
                  <p className="muted small mcp-tools">
                    {tools.length} tool{tools.length === 1 ? '' : 's'}: {tools.join(', ')}
                  </p>
                )}
                {(server.resources.length > 0 || server.resourceTemplates.length > 0) && (
                  <details className="mcp-resources">
                    <summary>
                      {server.resources.length} resource{server.resources.length === 1 ? '' : 's'},{' '}
                      {server.resourceTemplates.length} template
                      {server.resourceTemplates.length === 1 ? '' : 's'}
                    </summary>
                    <ul aria-label={`Resources of ${server.name}`}>
                      {server.resources.map((resource, i) => (
                        <li key={`r${i}`}>{resourceLine(resource, 'uri')}</li>
                      ))}
                      {server.resourceTemplates.map((template, i) => (
                        <li key={`t${i}`}>{resourceLine(template, 'uriTemplate')}</li>
                      ))}
                    </ul>
                  </details>
                )}
                {server.weftLog !== undefined && server.weftLog.length > 0 && (
                  <details className="mcp-log">
                    <summary>Last start log</summary>
                    <pre>{server.weftLog.join('\n')}</pre>
                  </details>
                )}
              </li>
            );
          })}
        </ul>
      )}
      {error !== null && (
        <p className="settings-status settings-status-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
