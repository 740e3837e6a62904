import { z } from 'zod';
import { functionTool, type ToolHandler } from './types';

const PlanArgs = z.object({
  explanation: z.string().nullish(),
  plan: z.array(z.object({ step: z.string().min(1), status: z.enum(['pending', 'in_progress', 'completed']) })),
});

const STATUS = { pending: 'pending', in_progress: 'inProgress', completed: 'completed' } as const;

/** `update_plan`: the model's checklist for the turn, shown live as `turn/plan/updated`. */
export function updatePlanTool(): ToolHandler {
  return functionTool({
    name: 'update_plan',
    parallel: false,
    args: PlanArgs,
    spec: {
      type: 'function',
      name: 'update_plan',
      description:
        'Updates the task plan.\nProvide an optional explanation and a list of plan items, each with a step and status.\nAt most one step can be in_progress at a time.',
      strict: false,
      parameters: {
        type: 'object',
        properties: {
          explanation: { type: 'string' },
          plan: {
            type: 'array',
            description: 'The list of steps',
            items: {
              type: 'object',
              properties: {
                step: { type: 'string' },
                status: { type: 'string', description: 'One of: pending, in_progress, completed' },
              },
              required: ['step', 'status'],
              additionalProperties: false,
            },
          },
        },
        required: ['plan'],
        additionalProperties: false,
      },
    },
    handle: async (args: z.output<typeof PlanArgs>, _call, ctx) => {
      const inProgress = args.plan.filter((s) => s.status === 'in_progress');
      if (inProgress.length > 1) {
        return {
          output: `plan rejected: ${inProgress.length} steps are in_progress (${inProgress.map((s) => JSON.stringify(s.step)).join(', ')}); at most one step may be in_progress. Mark finished steps completed and the rest pending, then call update_plan again.`,
          success: false,
        };
      }
      ctx.emit({
        method: 'turn/plan/updated',
        params: {
          threadId: ctx.threadId,
          turnId: ctx.turnId,
          explanation: args.explanation ?? null,
          plan: args.plan.map((s) => ({ step: s.step, status: STATUS[s.status] })),
        },
      });
      return { output: 'Plan updated', success: true };
    },
  });
}
