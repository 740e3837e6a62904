// App-wide notices: the connection banner, toasts, and server warnings.
import { Icon, Spinner } from '../components/Icon';
import { useController, useWeft } from '../store/app-context';

export function ConnectionBanner() {
  const controller = useController();
  const connection = useWeft((s) => s.ui.connection);
  switch (connection.phase) {
    case 'open':
      return null;
    case 'connecting':
      return (
        <div className="banner banner-info" role="status">
          <Spinner size={12} /> Connecting to Weft…
        </div>
      );
    case 'reconnecting':
      return (
        <div className="banner banner-warn" role="status">
          <Spinner size={12} /> Connection lost — reconnecting {connection.attempt}/{connection.maxAttempts}…
          <span className="muted"> {connection.lastError}</span>
        </div>
      );
    case 'failed':
      if (connection.reason === 'token') {
        return (
          <div className="banner banner-error banner-token" role="alert">
            <Icon name="alert" size={14} />
            <span>
              <strong>Weft restarted with a new access token.</strong> This page’s address no longer works: open the
              address <code>weft serve</code> printed when it started (run it again to print it). Start it with the
              default token file (no <code>--new-token</code>) to keep addresses working across restarts.
            </span>
            <button type="button" className="btn btn-small" onClick={() => controller.retryConnection()}>
              <Icon name="refresh" size={12} /> Try again
            </button>
          </div>
        );
      }
      return (
        <div className="banner banner-error" role="alert">
          <Icon name="alert" size={14} /> {connection.message}
          <button type="button" className="btn btn-small" onClick={() => controller.retryConnection()}>
            <Icon name="refresh" size={12} /> Retry
          </button>
        </div>
      );
  }
}

export function Toasts() {
  const controller = useController();
  const toasts = useWeft((s) => s.ui.toasts);
  const warnings = useWeft((s) => s.data.warnings);
  if (toasts.length === 0 && warnings.length === 0) return null;
  return (
    <div className="toasts">
      {warnings.map((warning, i) => (
        <div key={`w${i}`} className="toast toast-warn" role="status">
          <Icon name="alert" size={14} />
          <span>{warning.message}</span>
        </div>
      ))}
      {toasts.map((toast) => (
        <div key={toast.id} className="toast" role="alert">
          <Icon name="alert" size={14} />
          <span>{toast.message}</span>
          <button
            type="button"
            className="icon-button"
            aria-label="Dismiss"
            onClick={() => controller.dismissToast(toast.id)}
          >
            <Icon name="x" size={12} />
          </button>
        </div>
      ))}
    </div>
  );
}
