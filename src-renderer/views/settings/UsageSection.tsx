// Usage: tokens and their cost per day over the last two weeks (`weft/usage/daily`, read from the saved
// threads), priced with `[model_prices]` in config.toml; models without a price are named.
import { useEffect, useId, useState } from 'react';
import type { WeftUsageDailyResult } from '../../../src-preload/protocol';
import { costText } from '../../components/format';
import { useController } from '../../store/app-context';
import { failureText, SectionHeading, useSettingsPlace } from './settings-place';

const DAYS = 14;

export function UsageSection() {
  const controller = useController();
  const place = useSettingsPlace();
  const [usage, setUsage] = useState<WeftUsageDailyResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const titleId = useId();

  useEffect(() => {
    let live = true;
    controller.request('weft/usage/daily', { days: DAYS, cwd: place.folder, ...place.on }).then(
      (result) => live && setUsage(result),
      (e: unknown) => live && setError(failureText(place, e, 'Could not read the usage')),
    );
    return () => {
      live = false;
    };
  }, [controller, place]);

  const n = (v: number): string => v.toLocaleString();
  const unpriced = usage?.total.cost.unpricedModels ?? [];
  return (
    <section className="settings-section" aria-labelledby={titleId}>
      <SectionHeading id={titleId}>Usage</SectionHeading>
      <p className="muted small">
        Tokens of the last {DAYS} days and what they cost, in US dollars at the prices of <code>[model_prices]</code> in
        config.toml (Weft knows the list prices of its built-in models).
      </p>
      {usage === null ? (
        <p className="muted small">{error ?? 'Reading the threads…'}</p>
      ) : usage.days.length === 0 ? (
        <p className="muted small">No tokens used in the last {DAYS} days.</p>
      ) : (
        <table className="usage-table" aria-label="Tokens and cost per day">
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Input</th>
              <th scope="col">Cached</th>
              <th scope="col">Cache writes</th>
              <th scope="col">Output</th>
              <th scope="col">Reasoning</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {usage.days.map((day) => (
              <tr key={day.date}>
                <th scope="row">{day.date}</th>
                <td>{n(day.usage.inputTokens)}</td>
                <td>{n(day.usage.cachedInputTokens)}</td>
                <td>{n(day.usage.cacheWriteInputTokens ?? 0)}</td>
                <td>{n(day.usage.outputTokens)}</td>
                <td>{n(day.usage.reasoningOutputTokens)}</td>
                <td>{costText(day.cost)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <td>{n(usage.total.usage.inputTokens)}</td>
              <td>{n(usage.total.usage.cachedInputTokens)}</td>
              <td>{n(usage.total.usage.cacheWriteInputTokens ?? 0)}</td>
              <td>{n(usage.total.usage.outputTokens)}</td>
              <td>{n(usage.total.usage.reasoningOutputTokens)}</td>
              <td>{costText(usage.total.cost)}</td>
            </tr>
          </tfoot>
        </table>
      )}
      {unpriced.length > 0 && (
        <p className="muted small">
          Unknown price for {unpriced.join(', ')}: add <code>[model_prices."{unpriced[0]}"]</code> with{' '}
          <code>input</code>, <code>cached_input</code> and <code>output</code> (US dollars per million tokens).
        </p>
      )}
    </section>
  );
}
