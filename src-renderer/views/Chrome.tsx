// App-wide notices: the connection banner, toasts, and server warnings.
import { useEffect, useRef, useState } from 'react';
import { Icon, Spinner } from '../components/Icon';
import { useModalOpen } from '../components/use-modal';
import { useController, useWeft } from '../store/app-context';
import type { Toast } from '../store/store';
import type { WeftEnvironmentStatusNotification, WeftInstallOffer } from '../../src-preload/protocol';
import { InstallWeft } from './InstallWeft';

export function ConnectionBanner() {
  const controller = useController();
  const connection = useWeft((s) => s.ui.connection);
  const link = useWeft((s) => s.data.link);
  const installOffer = useWeft((s) => s.ui.installOffer);
  switch (connection.phase) {
    case 'open':
      if (link !== null && link.state !== 'connected') return <EnvironmentBanner link={link} />;
      return installOffer === null ? null : <InstallBanner {...installOffer} />;
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

/**
 * The link from the server to its remote environment is down: the agent there goes on, this page waits.
 * When the last attempt found no Weft there, or one that cannot serve this one, the install is offered
 * here as in Open folder (by a page whose host reaches environments: one served from the environment
 * itself, `weft serve --env`, would ask the environment to install on itself).
 */
function EnvironmentBanner({ link }: { link: WeftEnvironmentStatusNotification }) {
  const controller = useController();
  const servedFrom = useWeft((s) => s.ui.environment);
  const offer = servedFrom === null ? (link.weftInstall ?? null) : null;
  const install =
    offer === null ? null : (
      <InstallWeft
        key={offer.environment}
        offer={offer}
        onInstalled={() => controller.environmentInstalled(offer.environment)}
      />
    );
  if (link.state === 'disconnected') {
    return (
      <div className={`banner banner-error${install === null ? '' : ' banner-install'}`} role="alert">
        <span>
          <Icon name="alert" size={14} /> Lost the link to {link.environment}.
          {/* With the install offered, the offer says which Weft runs there: the link's message would say it twice. */}
          {install === null && <span className="muted"> {link.message}</span>}
        </span>
        {install}
      </div>
    );
  }
  return (
    <div className={`banner banner-warn${install === null ? '' : ' banner-install'}`} role="status">
      <span>
        <Spinner size={12} /> Reconnecting to {link.environment}… Its turns go on there; what they do shows here once
        back.
        {install === null && <span className="muted"> {link.message}</span>}
      </span>
      {install}
    </div>
  );
}

/** A request for an environment was refused: its Weft is missing or cannot serve this app; the install is offered. */
function InstallBanner({ offer, message }: { offer: WeftInstallOffer; message: string }) {
  const controller = useController();
  return (
    <div className="banner banner-error banner-install" role="alert">
      <span className="banner-install-head">
        <span>
          <Icon name="alert" size={14} /> Cannot use {offer.environment}.<span className="muted"> {message}</span>
        </span>
        <button
          type="button"
          className="icon-button"
          aria-label="Dismiss"
          onClick={() => controller.dismissInstallOffer()}
        >
          <Icon name="x" size={12} />
        </button>
      </span>
      <InstallWeft
        key={offer.environment}
        offer={offer}
        onInstalled={() => controller.environmentInstalled(offer.environment)}
      />
    </div>
  );
}

/** How long a notice that only informs stays, counted while the pointer and the focus are elsewhere. */
const INFO_MS = 5000;
/** Left again after being pointed at, a notice stays at least this long. */
const INFO_AFTER_PAUSE_MS = 1500;

function ToastItem({ toast }: { toast: Toast }) {
  const controller = useController();
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const remaining = useRef(INFO_MS);
  const paused = hovered || focused;
  useEffect(() => {
    if (toast.kind !== 'info' || paused) return;
    const started = Date.now();
    const timer = window.setTimeout(() => controller.dismissToast(toast.id), remaining.current);
    return () => {
      window.clearTimeout(timer);
      remaining.current = Math.max(INFO_AFTER_PAUSE_MS, remaining.current - (Date.now() - started));
    };
  }, [controller, toast.id, toast.kind, paused]);
  return (
    <div
      className={`toast toast-${toast.kind}`}
      role={toast.kind === 'error' ? 'alert' : 'status'}
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(e) => {
        if (!(e.relatedTarget instanceof Node && e.currentTarget.contains(e.relatedTarget))) setFocused(false);
      }}
    >
      <Icon name={toast.kind === 'error' ? 'alert' : 'info'} size={14} />
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
  );
}

/**
 * Notices in the window's corner: server warnings and toasts. A notice that only informs goes by itself
 * (not while pointed at or focused); errors and warnings stay until dismissed. While a modal dialog is
 * open they sit behind its backdrop, so they never cover the dialog or take its clicks.
 */
export function Toasts() {
  const toasts = useWeft((s) => s.ui.toasts);
  const warnings = useWeft((s) => s.data.warnings);
  const underModal = useModalOpen();
  const [dismissed, setDismissed] = useState<readonly string[]>([]);
  const shown = warnings.filter((warning) => !dismissed.includes(warning.message));
  if (toasts.length === 0 && shown.length === 0) return null;
  return (
    <div className={`toasts${underModal ? ' is-under-modal' : ''}`}>
      {shown.map((warning) => (
        <div key={warning.message} className="toast toast-warn" role="status">
          <Icon name="alert" size={14} />
          <span>{warning.message}</span>
          <button
            type="button"
            className="icon-button"
            aria-label="Dismiss"
            onClick={() => setDismissed((list) => [...list, warning.message])}
          >
            <Icon name="x" size={12} />
          </button>
        </div>
      ))}
      {toasts.map((toast) => (
        <ToastItem key={toast.id} toast={toast} />
      ))}
    </div>
  );
}
