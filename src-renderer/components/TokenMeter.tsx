// How full the model's context window is, from the latest token usage of the thread.
import type { ThreadTokenUsage } from '../../src-preload/protocol';
import { compactNumber, countText } from './format';

export function TokenMeter({ usage, contextWindow }: { usage: ThreadTokenUsage | null; contextWindow: number | null }) {
  if (usage === null || usage.total.totalTokens === 0) return null;
  const window = usage.modelContextWindow ?? contextWindow;
  const used = usage.last.totalTokens;
  const total = usage.total;
  const details = `This thread: ${countText(total.totalTokens)} tokens (${countText(total.inputTokens)} in, ${countText(total.cachedInputTokens)} cached, ${countText(total.outputTokens)} out)`;
  if (window === null || window === 0) {
    return (
      <span className="token-meter" title={details}>
        {compactNumber(total.totalTokens)} tokens
      </span>
    );
  }
  const fraction = Math.min(1, used / window);
  const tone = fraction > 0.9 ? 'danger' : fraction > 0.75 ? 'caution' : 'calm';
  return (
    <span
      className={`token-meter tone-${tone}`}
      title={`${details}. Context: ${countText(used)} of ${countText(window)}.`}
    >
      <span
        className="token-bar"
        role="meter"
        aria-label="Context window used"
        aria-valuemin={0}
        aria-valuemax={window}
        aria-valuenow={used}
        aria-valuetext={`${Math.round(fraction * 100)}% of the context window`}
      >
        <span className="token-fill" style={{ width: `${fraction * 100}%` }} />
      </span>
      <span className="token-text">
        {compactNumber(used)} / {compactNumber(window)}
      </span>
    </span>
  );
}
