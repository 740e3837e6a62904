// The offer shown where an environment turned out to have no Weft, or one that cannot serve this app:
// "Install Weft <version> on <environment>" copies this Weft there over the environment's own link and
// installs it with npm (`weft/environment/install`), its steps shown as they come, with Cancel; once done,
// config.toml's `[environments.NAME]` starts it and `onInstalled` runs (the chooser opens the folder again).
import { useEffect, useState } from 'react';
import type { WeftEnvironmentInstallResult, WeftInstallableData } from '../../src-preload/protocol';
import { Icon, Spinner } from '../components/Icon';
import { useApp } from '../store/app-context';

type Offer = WeftInstallableData['weftInstall'];

/** Lines of progress kept on screen (the latest last). */
const SHOWN_LINES = 5;

export function InstallWeft({ offer, onInstalled }: { offer: Offer; onInstalled: () => void }) {
  const { controller } = useApp();
  const { environment, localVersion, remoteVersion } = offer;
  const [running, setRunning] = useState(false);
  const [lines, setLines] = useState<string[]>([]);
  const [failed, setFailed] = useState<string | null>(null);
  const [done, setDone] = useState<WeftEnvironmentInstallResult | null>(null);
  const [cancelling, setCancelling] = useState(false);

  useEffect(() => {
    if (!running) return;
    return controller.onNotification((n) => {
      if (n.method !== 'weft/environment/install/progress' || n.params.environment !== environment) return;
      setLines((shown) => [...shown, n.params.message].slice(-SHOWN_LINES));
    });
  }, [controller, running, environment]);

  const install = async (): Promise<void> => {
    setRunning(true);
    setLines([]);
    setFailed(null);
    setCancelling(false);
    try {
      const result = await controller.request('weft/environment/install', { environment });
      setDone(result);
      onInstalled();
    } catch (error) {
      setFailed(error instanceof Error ? error.message : String(error));
    } finally {
      setRunning(false);
    }
  };

  if (done !== null) {
    return (
      <div className="install-weft" role="status">
        <p className="settings-status settings-status-ok">
          <Icon name="check" size={12} /> Weft {done.version} is installed on {environment} (Node {done.node}), in{' '}
          <code>{done.directory}</code>. <code>[environments.{environment}]</code> of {done.configFile} now starts it.
        </p>
      </div>
    );
  }
  return (
    <div className="install-weft" aria-busy={running}>
      <p className="muted">
        {remoteVersion === null
          ? `${environment} has no Weft this app can start there.`
          : `${environment} runs Weft ${remoteVersion}; this app needs ${localVersion} there.`}{' '}
        The app can copy Weft {localVersion} there over the same link and install it with npm under{' '}
        <code>~/.weft/remote/{localVersion}</code> (it needs Node 22.12 or later there), then point{' '}
        <code>[environments.{environment}]</code> of your config.toml at it.
      </p>
      <div className="install-weft-actions">
        <button type="button" className="btn btn-primary" disabled={running} onClick={() => void install()}>
          {running ? <Spinner size={12} /> : <Icon name="download" size={12} />} Install Weft {localVersion} on{' '}
          {environment}
        </button>
        {running && (
          <button
            type="button"
            className="btn"
            disabled={cancelling}
            onClick={() => {
              setCancelling(true);
              void controller.request('weft/environment/install/cancel', { environment }).catch(() => undefined);
            }}
          >
            {cancelling ? 'Cancelling…' : 'Cancel'}
          </button>
        )}
      </div>
      {lines.length > 0 && (
        <ol className="install-weft-log" aria-label={`Installing Weft on ${environment}`}>
          {lines.map((line, i) => (
            <li key={`${i}-${line}`}>{line}</li>
          ))}
        </ol>
      )}
      {failed !== null && (
        <p className="settings-status settings-status-error" role="alert">
          The install failed: {failed}
        </p>
      )}
    </div>
  );
}
