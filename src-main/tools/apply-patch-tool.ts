import { z } from 'zod';
import { APPLY_PATCH_FUNCTION_DESCRIPTION, APPLY_PATCH_LARK_GRAMMAR } from './apply-patch-grammar';
import { functionTool, type ToolHandler } from './types';

/** How a patch is handed to the model: a freeform grammar tool (OpenAI models) or a JSON function. */
export type ApplyPatchToolType = 'freeform' | 'function';

export function applyPatchTool(type: ApplyPatchToolType): ToolHandler {
  if (type === 'freeform') {
    return {
      kind: 'custom',
      name: 'apply_patch',
      parallel: false,
      spec: {
        type: 'custom',
        name: 'apply_patch',
        description:
          'Use the `apply_patch` tool to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.',
        format: { type: 'grammar', syntax: 'lark', definition: APPLY_PATCH_LARK_GRAMMAR },
      },
      handle: (input, _call, ctx) => ctx.orchestrator.runPatch(ctx, input),
    };
  }
  const Args = z.object({ input: z.string() });
  return functionTool({
    name: 'apply_patch',
    parallel: false,
    args: Args,
    spec: {
      type: 'function',
      name: 'apply_patch',
      description: APPLY_PATCH_FUNCTION_DESCRIPTION,
      strict: false,
      parameters: {
        type: 'object',
        properties: { input: { type: 'string', description: 'The entire contents of the apply_patch command' } },
        required: ['input'],
        additionalProperties: false,
      },
    },
    handle: (args: z.output<typeof Args>, _call, ctx) => ctx.orchestrator.runPatch(ctx, args.input),
  });
}
