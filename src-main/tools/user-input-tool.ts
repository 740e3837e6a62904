import { z } from 'zod';
import { ServerRequests } from '../../src-preload/protocol';
import { newItemId } from '../util/ids';
import { functionTool, type ToolHandler } from './types';

const UserInputArgs = z.object({
  questions: z
    .array(
      z.object({
        id: z.string().min(1),
        header: z.string().default(''),
        question: z.string().min(1),
        options: z.array(z.object({ label: z.string(), description: z.string().default('') })).nullish(),
      }),
    )
    .min(1, 'ask at least one question')
    .max(3, 'ask at most three questions at a time'),
});

export const REQUEST_USER_INPUT = 'request_user_input';

/**
 * `request_user_input`: asks the person one to three questions and waits for the answers. Offered only in
 * a turn whose `questions` setting is on; a call in another turn (a model calling a tool it was not given)
 * is refused without asking anyone.
 */
export function requestUserInputTool(): ToolHandler {
  return functionTool({
    name: REQUEST_USER_INPUT,
    parallel: false,
    args: UserInputArgs,
    spec: {
      type: 'function',
      name: 'request_user_input',
      description:
        'Ask the user one to three short questions and wait for their answers. Use it only when you cannot proceed without a decision from the user. Offer 2-3 options per question when you can, recommended option first with "(Recommended)" in its label; the user can always answer in their own words.',
      strict: false,
      parameters: {
        type: 'object',
        properties: {
          questions: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string', description: 'snake_case identifier for the answer' },
                header: { type: 'string', description: 'Short label (at most 12 characters)' },
                question: { type: 'string' },
                options: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { label: { type: 'string' }, description: { type: 'string' } },
                    required: ['label', 'description'],
                    additionalProperties: false,
                  },
                },
              },
              required: ['id', 'header', 'question'],
              additionalProperties: false,
            },
          },
        },
        required: ['questions'],
        additionalProperties: false,
      },
    },
    handle: async (args: z.output<typeof UserInputArgs>, _call, ctx) => {
      if (ctx.questions === false)
        return {
          output:
            'nobody is there to answer questions in this turn (it runs unattended); decide on your own and say what you assumed',
          success: false,
        };
      const raw = await ctx.sendRequest(
        {
          method: 'item/tool/requestUserInput',
          params: {
            threadId: ctx.threadId,
            turnId: ctx.turnId,
            itemId: newItemId(),
            questions: args.questions.map((q) => ({
              id: q.id,
              header: q.header,
              question: q.question,
              isOther: true,
              isSecret: false,
              options: q.options ?? null,
            })),
          },
        },
        ctx.signal,
      );
      const parsed = ServerRequests['item/tool/requestUserInput'].result.safeParse(raw);
      if (!parsed.success) return { output: 'the user did not answer', success: false };
      const answers = parsed.data.answers;
      if (Object.keys(answers).length === 0) return { output: 'the user did not answer the questions', success: false };
      return { output: JSON.stringify({ answers }), success: true };
    },
  });
}
