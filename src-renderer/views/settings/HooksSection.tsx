// Lifecycle hooks: each configured hook with the file it comes from, its event, matcher and command, whether
// it is trusted, and its last run with its output; Trust records it as it is now (`weft/hooks/trust`). Hooks
// run outside the sandbox with the person's rights, so the section says so where the Trust button is.
import { useCallback, useEffect, useId, useState } from 'react';
import type { HookMetadata, HooksListEntry } from '../../../src-preload/protocol';
import { useController } from '../../store/app-context';
import { failureText, SectionHeading, useSettingsPlace } from './settings-place';

const TRUST_LABELS: Record<HookMetadata['trustStatus'], string> = {
  trusted: 'Trusted',
  untrusted: 'Not trusted: does not run',
  modified: 'Changed since trusted: does not run',
  managed: 'Managed',
};

function eventLabel(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function lastRun(hook: HookMetadata): string {
  const run = hook.weftLastRun;
  if (run === null || run === undefined) return 'Not run yet';
  const when = new Date(run.startedAt * 1000).toLocaleTimeString(undefined, { timeStyle: 'short' });
  const exit = run.weftExitCode === null || run.weftExitCode === undefined ? '' : `, exit ${run.weftExitCode}`;
  const took = run.durationMs === null || run.durationMs === undefined ? '' : ` in ${run.durationMs} ms`;
  return `Last run ${when}: ${run.status}${took}${exit}`;
}

export function HooksSection() {
  const controller = useController();
  // The project shown (a window may hold several): its own trusted hooks are listed with the user's.
  const place = useSettingsPlace();
  const [entry, setEntry] = useState<HooksListEntry | null>(null);
  const [error, setError] = useState<string | null>(null);
  const titleId = useId();

  const load = useCallback(async () => {
    try {
      const cwds = place.folder === null ? [] : [place.folder];
      setEntry((await controller.request('hooks/list', { cwds, ...place.on })).data[0] ?? null);
    } catch (e) {
      setError(failureText(place, e, 'Could not read the hooks'));
    }
  }, [controller, place]);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- load() sets state only after its await (react/react#34905)
    void load();
  }, [load]);

  const act = async (work: () => Promise<unknown>): Promise<void> => {
    try {
      await work();
      setError(null);
    } catch (e) {
      setError(failureText(place, e, 'Not saved'));
    }
    await load();
  };
  const trust = (hook: HookMetadata) =>
    act(() =>
      controller.request('weft/hooks/trust', {
        cwd: entry?.cwd ?? null,
        hooks: [{ key: hook.key, currentHash: hook.currentHash }],
        ...place.on,
      }),
    );
  const setEnabled = (hook: HookMetadata, enabled: boolean) =>
    act(() => controller.request('weft/hooks/setEnabled', { key: hook.key, enabled, ...place.on }));

  const hooks = entry?.hooks ?? [];
  return (
    <section className="settings-section" aria-labelledby={titleId}>
      <SectionHeading id={titleId}>Hooks</SectionHeading>
      <p className="muted small">
        Your programs, run at points of a thread’s life (hooks.json and [hooks] in config.toml). They run outside the
        sandbox with your rights, so a hook runs only once you trust it as it is.
      </p>
      {entry !== null && hooks.length === 0 && <p className="muted small">No hooks are configured for {entry.cwd}.</p>}
      {hooks.length > 0 && (
        <ul className="hooks-list" aria-labelledby={titleId}>
          {hooks.map((hook) => (
            <li key={hook.key} className={`hook-entry is-${hook.enabled ? hook.trustStatus : 'disabled'}`}>
              <div className="hook-entry-main">
                <strong>{eventLabel(hook.eventName)}</strong>
                {hook.matcher !== null && <span className="muted small">matcher {hook.matcher}</span>}
                <span className="hook-trust">{hook.enabled ? TRUST_LABELS[hook.trustStatus] : 'Disabled'}</span>
              </div>
              <code className="hook-command">{actionOf(hook)}</code>
              <div className="muted small">
                {hook.sourcePath} · timeout {hook.timeoutSec}s · {lastRun(hook)}
              </div>
              {hook.weftLastRun?.weftOutput ? <pre className="hook-output">{hook.weftLastRun.weftOutput}</pre> : null}
              <div className="hook-actions">
                {hook.trustStatus !== 'trusted' && (
                  <button
                    type="button"
                    className="btn btn-small"
                    aria-label={`Trust the ${eventLabel(hook.eventName)} hook ${actionOf(hook)}`}
                    onClick={() => void trust(hook)}
                  >
                    Trust
                  </button>
                )}
                <button type="button" className="btn btn-small" onClick={() => void setEnabled(hook, !hook.enabled)}>
                  {hook.enabled ? 'Disable' : 'Enable'}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {entry !== null &&
        [...entry.errors.map((e) => `${e.path}: ${e.message}`), ...entry.warnings].map((line) => (
          <p key={line} className="settings-status settings-status-error">
            {line}
          </p>
        ))}
      {error !== null && (
        <p className="settings-status settings-status-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}

/** What the hook runs: its command, or the MCP tool it calls with its arguments. */
function actionOf(hook: HookMetadata): string {
  const mcp = hook.weftMcpTool;
  if (mcp) return `mcp_tool ${mcp.server}/${mcp.tool} ${JSON.stringify(mcp.input)}`;
  return hook.command ?? '';
}
