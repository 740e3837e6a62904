// Remembered approvals: every rule with where it came from, revoked with one click.
import { useCallback, useEffect, useId, useState } from 'react';
import type { WeftRuleInfo } from '../../../src-preload/protocol';
import { baseName } from '../../components/format';
import { useController } from '../../store/app-context';
import { failureText, SectionHeading, useSettingsPlace } from './settings-place';

const DECISION_LABELS: Record<WeftRuleInfo['decision'], string> = {
  allow: 'Runs without asking',
  prompt: 'Always asks',
  forbidden: 'Never runs',
};

function origin(rule: WeftRuleInfo): string {
  const where = `${baseName(rule.sourceFile)}:${rule.line}`;
  if (rule.createdAt === null) return `Written in ${where}`;
  const when = new Date(rule.createdAt);
  const date = Number.isNaN(when.getTime())
    ? rule.createdAt
    : when.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return `Remembered from an approval on ${date} · ${where}`;
}

export function RulesSection() {
  const controller = useController();
  const [rules, setRules] = useState<WeftRuleInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const titleId = useId();
  const place = useSettingsPlace();

  const load = useCallback(async () => {
    try {
      setRules((await controller.request('weft/rules/list', { ...place.on })).rules);
    } catch (e) {
      setError(failureText(place, e, 'Could not read the remembered approvals'));
    }
  }, [controller, place]);

  useEffect(() => {
    // eslint-disable-next-line react-hooks/set-state-in-effect -- load() sets state only after its await (react/react#34905)
    void load();
  }, [load]);

  const revoke = async (rule: WeftRuleInfo): Promise<void> => {
    try {
      await controller.request('weft/rules/revoke', { id: rule.id, ...place.on });
      setError(null);
    } catch (e) {
      setError(failureText(place, e, 'Not revoked'));
    }
    await load();
  };

  return (
    <section className="settings-section" aria-labelledby={titleId}>
      <SectionHeading id={titleId}>Remembered approvals</SectionHeading>
      {rules !== null && rules.length === 0 && (
        <p className="muted small">None yet. “Always allow” on a command approval remembers it here.</p>
      )}
      {rules !== null && rules.length > 0 && (
        <ul className="rules" aria-labelledby={titleId}>
          {rules.map((rule) => (
            <li key={`${rule.id}:${rule.sourceFile}:${rule.line}`} className="rule">
              <div className="rule-main">
                <code className="rule-pattern">{rule.pattern.join(' ')}</code>
                <span className={`rule-decision rule-${rule.decision}`}>{DECISION_LABELS[rule.decision]}</span>
              </div>
              <div className="muted small">
                {origin(rule)}
                {rule.justification !== null && ` · ${rule.justification}`}
              </div>
              <button
                type="button"
                className="btn btn-small"
                aria-label={`Revoke ${rule.pattern.join(' ')}`}
                onClick={() => void revoke(rule)}
              >
                Revoke
              </button>
            </li>
          ))}
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
