// Settings: providers and their keys, the defaults new threads start with, appearance, the
// remembered approvals and the MCP servers. Everything is written to the user's config.toml through the protocol, except
// keys (saved by `weft/auth/setKey`, never shown again) and view preferences (kept in this browser).
import { useId, useRef } from 'react';
import { Icon } from '../../components/Icon';
import { useModal } from '../../components/use-modal';
import { useController, useWeft } from '../../store/app-context';
import { AppearanceSection } from './AppearanceSection';
import { CheckpointsSection } from './CheckpointsSection';
import { DefaultsSection } from './DefaultsSection';
import { McpSection } from './McpSection';
import { ProvidersSection } from './ProvidersSection';
import { RulesSection } from './RulesSection';

export function SettingsDialog() {
  const controller = useController();
  const open = useWeft((s) => s.ui.settingsOpen);
  const titleId = useId();
  const dialog = useRef<HTMLElement>(null);
  useModal(dialog, () => controller.closeSettings());
  return (
    <div
      className="overlay overlay-center"
      onMouseDown={(e) => e.target === e.currentTarget && controller.closeSettings()}
    >
      <section className="sheet settings" role="dialog" aria-modal="true" aria-labelledby={titleId} ref={dialog}>
        <header className="sheet-head">
          <h2 id={titleId}>Settings</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={() => controller.closeSettings()}>
            <Icon name="x" />
          </button>
        </header>
        <div className="settings-body">
          <ProvidersSection focusKey={open?.section === 'providers'} />
          <DefaultsSection />
          <AppearanceSection />
          <RulesSection />
          <CheckpointsSection />
          <McpSection />
        </div>
      </section>
    </div>
  );
}
