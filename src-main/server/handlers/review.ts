// `review/start`: a review turn on a loaded thread. The target's diff is computed here and sent with
// the project's AGENTS.md guidance in the reviewer's one request.
import { discoverProjectDocs } from '../../context/agents-md';
import {
  parseReview,
  renderReview,
  REVIEW_INSTRUCTIONS,
  REVIEW_OUTPUT_SCHEMA,
  reviewPrompt,
} from '../../git/review-format';
import { reviewMaterial, ReviewTargetError } from '../../git/review-target';
import { SessionError } from '../../core/session';
import type { HandlerTable } from '../dispatcher';
import { invalidParams, invalidRequest } from '../rpc-error';
import type { HandlerContext } from './context';
import { gitRpcError } from './git';

type ReviewHandlers = Pick<HandlerTable, 'review/start'>;

export function reviewHandlers(ctx: HandlerContext): ReviewHandlers {
  const { manager, environment } = ctx;
  return {
    'review/start': async (params, client) => {
      const entry = manager.get(params.threadId);
      if (!entry) throw invalidParams(`thread ${params.threadId} is not loaded; call thread/resume first`);
      manager.subscribe(params.threadId, client);
      const cwd = entry.session.currentSettings.cwd;
      let material;
      try {
        material = await reviewMaterial(cwd, params.target);
      } catch (error) {
        if (error instanceof ReviewTargetError) throw invalidRequest(error.message);
        throw gitRpcError(error);
      }
      const docs = await discoverProjectDocs({ cwd, weftHome: environment.weftHome });
      const root = material.root;
      try {
        const turn = await entry.session.startReview({
          description: material.description,
          instructions: REVIEW_INSTRUCTIONS,
          prompt: reviewPrompt(material, cwd, docs.text),
          outputSchema: REVIEW_OUTPUT_SCHEMA,
          parse: (answer) => {
            const output = parseReview(answer, root);
            return { text: output === null ? answer : renderReview(output), output };
          },
        });
        return { turn, reviewThreadId: params.threadId };
      } catch (error) {
        if (error instanceof SessionError) throw invalidRequest(error.message);
        throw error;
      }
    },
  };
}
