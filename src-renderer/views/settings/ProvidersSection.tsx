// Providers: which one new turns use, its base URL, and its API key (saved, never shown: only whether one
// is set and where it comes from).
import { useId, useState } from 'react';
import type { WeftProviderInfo } from '../../../src-preload/protocol';
import { Spinner } from '../../components/Icon';
import { useController, useWeft } from '../../store/app-context';
import { SectionHeading, useSettingsPlace } from './settings-place';

function keyState(provider: WeftProviderInfo): string {
  switch (provider.keySource) {
    case 'config':
      return 'Set (experimental_bearer_token in config.toml)';
    case 'env':
      return `Set (from ${provider.envKey ?? 'the environment'})`;
    case 'saved':
      return 'Set (saved in Weft)';
    case null:
      return provider.keyRequired ? 'Not set' : 'Not needed';
  }
}

function ProviderRow({
  provider,
  active,
  autoFocus,
}: {
  provider: WeftProviderInfo;
  active: boolean;
  autoFocus: boolean;
}) {
  const controller = useController();
  const [key, setKey] = useState('');
  const [baseUrl, setBaseUrl] = useState(provider.baseUrl ?? '');
  const [status, setStatus] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const keyId = useId();
  const urlId = useId();

  const save = async (): Promise<void> => {
    setBusy(true);
    const error = await controller.saveKey(provider.id, key);
    setBusy(false);
    if (error === null) {
      setKey('');
      setStatus({ tone: 'ok', text: 'Key saved. The next turn uses it.' });
    } else {
      setStatus({ tone: 'error', text: error });
    }
  };

  const saveUrl = async (): Promise<void> => {
    const error = await controller.writeConfig(`model_providers.${provider.id}.base_url`, baseUrl.trim());
    setStatus(error === null ? { tone: 'ok', text: 'Base URL saved.' } : { tone: 'error', text: error });
  };

  return (
    <fieldset className={`provider ${active ? 'is-active' : ''}`}>
      <legend>
        {provider.name}
        {active && <span className="badge badge-accent">In use</span>}
      </legend>
      <dl className="provider-facts">
        <dt>API key</dt>
        <dd className={provider.keyRequired && provider.keySource === null ? 'key-missing' : undefined}>
          {keyState(provider)}
        </dd>
        {provider.builtin && (
          <>
            <dt>Base URL</dt>
            <dd>
              <code>{provider.baseUrl ?? '—'}</code>
            </dd>
          </>
        )}
      </dl>
      {!provider.builtin && (
        <form
          className="settings-row"
          onSubmit={(e) => {
            e.preventDefault();
            void saveUrl();
          }}
        >
          <label htmlFor={urlId}>Base URL</label>
          <input
            id={urlId}
            className="text-input"
            value={baseUrl}
            onChange={(e) => setBaseUrl(e.target.value)}
            spellCheck={false}
            placeholder="https://…/v1"
          />
          <button type="submit" className="btn" disabled={baseUrl.trim() === '' || baseUrl.trim() === provider.baseUrl}>
            Save URL
          </button>
        </form>
      )}
      {(provider.keyRequired || provider.savedKey) && (
        <form
          className="settings-row"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <label htmlFor={keyId}>API key</label>
          <input
            id={keyId}
            className="text-input"
            type="password"
            autoComplete="off"
            spellCheck={false}
            placeholder={provider.savedKey ? 'Enter a new key to replace the saved one' : 'Paste the key'}
            value={key}
            onChange={(e) => setKey(e.target.value)}
            data-autofocus={autoFocus ? true : undefined}
          />
          <button type="submit" className="btn btn-primary" disabled={busy || key.trim() === ''}>
            {busy ? <Spinner size={12} /> : null}
            Save
          </button>
        </form>
      )}
      <div className="settings-actions">
        {!active && (
          <button
            type="button"
            className="btn btn-small"
            onClick={() =>
              void controller
                .writeConfig('model_provider', provider.id)
                .then((error) => error !== null && setStatus({ tone: 'error', text: error }))
            }
          >
            Use {provider.name}
          </button>
        )}
        {provider.savedKey && (
          <button
            type="button"
            className="btn btn-small"
            onClick={() =>
              void controller.clearKey(provider.id).then(() => setStatus({ tone: 'ok', text: 'Saved key removed.' }))
            }
          >
            Remove saved key
          </button>
        )}
      </div>
      {status !== null && (
        <p
          className={`settings-status settings-status-${status.tone}`}
          role={status.tone === 'error' ? 'alert' : 'status'}
        >
          {status.text}
        </p>
      )}
    </fieldset>
  );
}

export function ProvidersSection({ focusKey }: { focusKey: boolean }) {
  const providers = useWeft((s) => s.ui.providers);
  const { environment } = useSettingsPlace();
  const titleId = useId();
  return (
    <section className="settings-section" aria-labelledby={titleId}>
      <SectionHeading id={titleId}>Providers</SectionHeading>
      {providers === null ? (
        <Spinner size={14} label="Loading the providers" />
      ) : (
        <>
          <p className="muted small">
            A key set in config.toml (<code>experimental_bearer_token</code>) is used first, then the provider’s
            environment variable, then the key saved {environment === null ? 'here' : `on ${environment}`}
            {providers.keyStorage === 'keychain'
              ? ' (in the system keychain)'
              : ' (in auth.json beside config.toml, readable only by you)'}
            . Saved keys are never shown again.
          </p>
          {providers.providers.map((p) => (
            <ProviderRow
              key={p.id}
              provider={p}
              active={p.id === providers.activeProviderId}
              autoFocus={focusKey && p.id === providers.activeProviderId}
            />
          ))}
          {providers.warnings.map((w) => (
            <p key={w} className="settings-status settings-status-error">
              {w}
            </p>
          ))}
          <p className="muted small">
            Other providers are added as <code>[model_providers.&lt;id&gt;]</code> tables in{' '}
            <code>{providers.configFile}</code>.
          </p>
        </>
      )}
    </section>
  );
}
