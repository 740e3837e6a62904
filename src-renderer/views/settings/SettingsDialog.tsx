// Settings: providers and their keys, the defaults new threads start with, appearance, notifications, the
// tokens and cost per day, the remembered approvals and the MCP servers. Everything is written to the user's config.toml through the protocol, except
// keys (saved by `weft/auth/setKey`, never shown again) and view preferences (kept in this browser).
// With a project on an environment shown, the dialog is that environment's ("Settings on box"): everything
// but the theme and this desktop's notifications is read and written there (see settings-place.tsx), and
// those two are grouped under "This machine".
import { useId, useLayoutEffect, useRef } from 'react';
import { Icon } from '../../components/Icon';
import { useModal } from '../../components/use-modal';
import { useController, useWeft } from '../../store/app-context';
import { AppearanceSection } from './AppearanceSection';
import { CheckpointsSection } from './CheckpointsSection';
import { DefaultsSection } from './DefaultsSection';
import { McpSection } from './McpSection';
import { NotificationsSection } from './NotificationsSection';
import { ProvidersSection } from './ProvidersSection';
import { RulesSection } from './RulesSection';
import { HooksSection } from './HooksSection';
import { UsageSection } from './UsageSection';
import { useSettingsPlace } from './settings-place';

export function SettingsDialog() {
  const controller = useController();
  const open = useWeft((s) => s.ui.settingsOpen);
  const { environment } = useSettingsPlace();
  // `weft serve --env box`: the whole page is box's (its requests all go there), this dialog included.
  const servedFrom = useWeft((s) => s.ui.environment);
  const whose = environment ?? servedFrom;
  const titleId = useId();
  const localId = useId();
  const dialog = useRef<HTMLElement>(null);
  useModal(dialog, () => controller.closeSettings());
  // Opened at the MCP section (`/mcp`, the failed-server chip): its top is kept at the top of the view
  // while the sections load and change size, until the person scrolls, clicks or types there.
  const mcpSection = useRef<HTMLElement>(null);
  const body = useRef<HTMLDivElement>(null);
  const atMcp = open?.section === 'mcp';
  useLayoutEffect(() => {
    const section = mcpSection.current;
    const scroller = body.current;
    if (!atMcp || section === null || scroller === null) return;
    const pin = (): void => {
      scroller.scrollTop += section.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
    };
    pin();
    const observer = new ResizeObserver(pin);
    for (const child of scroller.children) observer.observe(child);
    const events = ['wheel', 'pointerdown', 'keydown'] as const;
    const unpin = (): void => {
      observer.disconnect();
      for (const name of events) scroller.removeEventListener(name, unpin);
    };
    for (const name of events) scroller.addEventListener(name, unpin, { passive: true });
    return unpin;
  }, [atMcp]);
  return (
    <div
      className="overlay overlay-center"
      onMouseDown={(e) => e.target === e.currentTarget && controller.closeSettings()}
    >
      <section className="sheet settings" role="dialog" aria-modal="true" aria-labelledby={titleId} ref={dialog}>
        <header className="sheet-head">
          <h2 id={titleId}>
            Settings
            {whose !== null && (
              <>
                {' '}
                <span className="settings-whose">on {whose}</span>
              </>
            )}
          </h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={() => controller.closeSettings()}>
            <Icon name="x" />
          </button>
        </header>
        {environment !== null && (
          <p className="settings-whose-note">
            The project shown is on <strong>{environment}</strong>: its providers and keys, defaults, remembered
            approvals, usage, hooks, checkpoints and MCP servers are read and changed there, in its config.toml. The
            theme and the notifications are this machine’s, at the end.
          </p>
        )}
        <div className="settings-body" ref={body}>
          <ProvidersSection focusKey={open?.section === 'providers'} />
          <DefaultsSection />
          {environment === null && (
            <>
              <AppearanceSection />
              <NotificationsSection />
            </>
          )}
          <UsageSection />
          <RulesSection />
          <HooksSection />
          <CheckpointsSection />
          <McpSection ref={mcpSection} />
          {environment !== null && (
            <section className="settings-group" aria-labelledby={localId}>
              <h3 id={localId} className="settings-group-title">
                This machine
              </h3>
              <p className="muted small">Kept here, whichever project is shown.</p>
              <AppearanceSection />
              <NotificationsSection />
            </section>
          )}
        </div>
      </section>
    </div>
  );
}
