import type { HandlerTable } from '../dispatcher';
import { invalidParams, invalidRequest } from '../rpc-error';
import type { HandlerContext } from './context';

type TurnHandlers = Pick<HandlerTable, 'turn/start' | 'turn/steer' | 'turn/interrupt'>;

export function turnHandlers(ctx: HandlerContext): TurnHandlers {
  const { manager } = ctx;
  const loaded = (threadId: string) => {
    const entry = manager.get(threadId);
    if (!entry) throw invalidParams(`thread ${threadId} is not loaded; call thread/resume first`);
    return entry;
  };
  return {
    'turn/start': async (params, client) => {
      const entry = loaded(params.threadId);
      manager.subscribe(params.threadId, client);
      if (params.input.length === 0) throw invalidParams('params.input: give at least one input item');
      const turn = await entry.session.startTurn(
        params.input,
        {
          cwd: params.cwd ?? undefined,
          approvalPolicy: params.approvalPolicy ?? undefined,
          sandboxPolicy: params.sandboxPolicy ?? undefined,
          model: params.model ?? undefined,
          effort: params.effort ?? undefined,
          summary: params.summary ?? undefined,
          questions: params.weftQuestions ?? undefined,
        },
        { outputSchema: params.outputSchema ?? null, ...(client.name === null ? {} : { client: client.name }) },
      );
      return { turn };
    },
    'turn/steer': async (params) => {
      const entry = loaded(params.threadId);
      try {
        await entry.session.steer(params.input, params.expectedTurnId);
      } catch (error) {
        throw invalidRequest(error instanceof Error ? error.message : String(error));
      }
      return { turnId: params.expectedTurnId };
    },
    'turn/interrupt': async (params) => {
      const entry = loaded(params.threadId);
      const active = entry.session.activeTurnId;
      if (active === null) return {};
      if (active !== params.turnId)
        throw invalidRequest(`turn ${params.turnId} is not running (the running turn is ${active})`);
      void entry.session.interrupt();
      return {};
    },
  };
}
