import { priceTable } from '../../model/prices';
import { dailyUsage } from '../../store/usage-report';
import type { HandlerTable } from '../dispatcher';
import { resolveCwd, threadConfig } from '../thread-factory';
import type { HandlerContext } from './context';
import { storeCallAsync } from './store-call';

type UsageHandlers = Pick<HandlerTable, 'weft/usage/daily'>;

/** `weft/usage/daily`: the tokens and cost per day, priced with the config of `cwd` (default: the project). */
export function usageHandlers(ctx: HandlerContext): UsageHandlers {
  const { environment, store } = ctx;
  return {
    'weft/usage/daily': async (params) => {
      const { loaded } = await threadConfig(environment, {}, resolveCwd(params.cwd, environment.defaultCwd));
      return storeCallAsync(() =>
        dailyUsage(store, priceTable(loaded.config), {
          ...(params.days == null ? {} : { days: params.days }),
          onSkipped: (paths) =>
            environment.log(
              `weft app-server: warning: per-day usage left out unreadable rollouts: ${paths.join(', ')}`,
            ),
        }),
      );
    },
  };
}
