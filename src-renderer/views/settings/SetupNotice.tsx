// Said before the person types: the provider in use needs a key and has none. Offers "Add API key".
import { Icon } from '../../components/Icon';
import { useController, useWeft } from '../../store/app-context';

export function SetupNotice() {
  const controller = useController();
  const providers = useWeft((s) => s.ui.providers);
  const active = providers?.providers.find((p) => p.id === providers.activeProviderId);
  if (providers === null || active === undefined || !active.keyRequired || active.keySource !== null) return null;
  return (
    <div className="setup-notice" role="status">
      <Icon name="alert" size={14} />
      <span>
        No API key for <strong>{active.name}</strong>:{' '}
        {active.envKey === null ? 'none is configured' : `${active.envKey} is not set`}, so turns cannot run.
      </span>
      <button type="button" className="btn btn-small btn-primary" onClick={() => controller.openSettings('providers')}>
        Add API key
      </button>
    </div>
  );
}
