// What the thread has cost so far at the price table (`[model_prices]`), beside the context meter; its
// title has the latest turn's cost and each model's tokens. Nothing before the server has said.
import { memo } from 'react';
import type { TokenUsageBreakdown, WeftTokenCost } from '../../src-preload/protocol';
import { costText, countText } from './format';

function tokens(u: TokenUsageBreakdown): string {
  return `${countText(u.inputTokens)} in (${countText(u.cachedInputTokens)} cached), ${countText(u.outputTokens)} out (${countText(u.reasoningOutputTokens)} reasoning)`;
}

export const CostChip = memo(function CostChip({ cost }: { cost: WeftTokenCost | null }) {
  if (cost === null) return null;
  const thread = cost.thread.cost;
  const lines = [
    ...(cost.turn === null ? [] : [`This turn: ${costText(cost.turn.cost)} for ${tokens(cost.turn.usage)}`]),
    ...cost.thread.byModel.map(
      (m) =>
        `${m.model}: ${costText(m.cost)} for ${tokens(m.usage)}${m.price === null ? ' (no price: set [model_prices."' + m.model + '"] in config.toml)' : ''}`,
    ),
  ];
  const unknown = thread.unpricedModels.length > 0;
  return (
    <span
      className={`cost-chip${unknown ? ' cost-unknown' : ''}`}
      title={lines.join('\n')}
      aria-label={`Thread cost: ${costText(thread)}`}
    >
      {costText(thread)}
    </span>
  );
});
