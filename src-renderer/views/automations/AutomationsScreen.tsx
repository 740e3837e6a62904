// The Automations screen, in place of the conversation: the automations (create, edit, enable, Run now,
// history) and the review inbox of their finished runs. Opened from the sidebar; a thread chosen there
// closes it.
import { useState } from 'react';
import type { WeftAutomationEntry } from '../../../src-preload/protocol';
import { Icon, Spinner } from '../../components/Icon';
import { openAutomations, useAutomationsUi, type AutomationsTab } from '../../store/automations-ui';
import { AutomationForm } from './AutomationForm';
import { AutomationList } from './AutomationList';
import { Inbox } from './Inbox';
import { useAutomationEntries, useInbox } from './use-automations';

export function AutomationsScreen({ tab }: { tab: AutomationsTab }) {
  const entries = useAutomationEntries();
  const inbox = useInbox();
  const unseen = useAutomationsUi((s) => s.unseen);
  const [form, setForm] = useState<{ entry: WeftAutomationEntry | null } | null>(null);
  const loaded = tab === 'automations' ? entries : inbox;
  return (
    <main className="main automations-screen" aria-label="Automations">
      <header className="main-header">
        <div className="main-title">
          <h1>Automations</h1>
          <span className="segmented automation-tabs" role="tablist" aria-label="Automations or inbox">
            <button
              type="button"
              role="tab"
              aria-selected={tab === 'automations'}
              onClick={() => openAutomations('automations')}
            >
              Automations
            </button>
            <button type="button" role="tab" aria-selected={tab === 'inbox'} onClick={() => openAutomations('inbox')}>
              Inbox
              {unseen !== null && unseen > 0 && <span className="count is-some">{unseen}</span>}
            </button>
          </span>
        </div>
        {tab === 'automations' && (
          <button type="button" className="btn btn-primary" onClick={() => setForm({ entry: null })}>
            <Icon name="plus" size={14} />
            New automation
          </button>
        )}
        <button
          type="button"
          className="icon-button"
          aria-label="Close automations"
          title="Back to the thread"
          onClick={() => openAutomations(null)}
        >
          <Icon name="x" />
        </button>
      </header>
      <div className="automations-body">
        {loaded.error !== null && (
          <p className="settings-status settings-status-error" role="alert">
            {loaded.error}
          </p>
        )}
        {loaded.value === null && loaded.error === null && <Spinner size={14} label="Loading" />}
        {tab === 'automations' && entries.value !== null && (
          <AutomationList entries={entries.value} onEdit={(entry) => setForm({ entry })} onChanged={entries.reload} />
        )}
        {tab === 'inbox' && inbox.value !== null && <Inbox items={inbox.value} onChanged={inbox.reload} />}
      </div>
      {form !== null && (
        <AutomationForm
          entry={form.entry}
          onClose={() => setForm(null)}
          onSaved={() => {
            setForm(null);
            void entries.reload();
          }}
        />
      )}
    </main>
  );
}
