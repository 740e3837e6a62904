import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { loadLocalImage } from './local-image';
import { newItemId } from '../util/ids';
import { functionTool, type ToolHandler } from './types';

const ViewImageArgs = z.object({ path: z.string().min(1) });

/** `view_image`: a local image joins the next model request as an input image. */
export function viewImageTool(): ToolHandler {
  return functionTool({
    name: 'view_image',
    parallel: true,
    args: ViewImageArgs,
    spec: {
      type: 'function',
      name: 'view_image',
      description: 'Attach a local image (by filesystem path) to the conversation context for this turn.',
      strict: false,
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', description: 'Local filesystem path to an image file' } },
        required: ['path'],
        additionalProperties: false,
      },
    },
    handle: async (args: z.output<typeof ViewImageArgs>, _call, ctx) => {
      const path = isAbsolute(args.path) ? args.path : resolve(ctx.cwd, args.path);
      const loaded = await loadLocalImage(path, ctx.cwd);
      if (!loaded.ok) return { output: `unable to view image: ${loaded.error}`, success: false };
      const item = { type: 'imageView' as const, id: newItemId(), path };
      ctx.emit({ method: 'item/started', params: { threadId: ctx.threadId, turnId: ctx.turnId, item } });
      ctx.emit({ method: 'item/completed', params: { threadId: ctx.threadId, turnId: ctx.turnId, item } });
      ctx.addPendingInput?.([{ type: 'input_image', image_url: loaded.url }]);
      return { output: `attached local image path: ${path}`, success: true };
    },
  });
}
