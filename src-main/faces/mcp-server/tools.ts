/**
 * The two tools `weft mcp-server` offers, with Codex's argument names (`codex` / `codex-reply`), so
 * a host configured for one can call the other: `weft` starts a thread and runs a prompt, `weft-reply`
 * continues a thread. Both answer `{content, structuredContent: {threadId, content}}`.
 */
import { z } from 'zod';

const approvalPolicy = z.enum(['untrusted', 'on-failure', 'on-request', 'never']);
const sandbox = z.enum(['read-only', 'workspace-write', 'danger-full-access']);

export const WeftToolInput = z.object({
  prompt: z.string().min(1).describe('What to do, in plain words: the first user message of a new Weft thread.'),
  cwd: z
    .string()
    .optional()
    .describe('The project folder the thread works in (default: where the server was started).'),
  'approval-policy': approvalPolicy
    .optional()
    .describe('When Weft asks before running commands: untrusted, on-failure, on-request or never.'),
  sandbox: sandbox.optional().describe('What commands may touch: read-only, workspace-write or danger-full-access.'),
  model: z.string().optional().describe('The model to use, e.g. gpt-5.1-codex.'),
  profile: z.string().optional().describe('A [profiles.NAME] table of config.toml to apply.'),
  'base-instructions': z.string().optional().describe('Replaces the built-in instructions.'),
  'developer-instructions': z.string().optional().describe('Added as a developer message after the instructions.'),
  config: z
    .record(z.string(), z.json())
    .optional()
    .describe('config.toml overrides by dotted key, e.g. {"model_reasoning_effort": "high"}.'),
});
export type WeftToolInput = z.infer<typeof WeftToolInput>;

export const WeftReplyToolInput = z.object({
  threadId: z.string().min(1).describe('The thread to continue (the threadId a `weft` call answered).'),
  prompt: z.string().min(1).describe('The next user message.'),
});
export type WeftReplyToolInput = z.infer<typeof WeftReplyToolInput>;

export const WeftToolOutput = z.object({
  threadId: z.string().describe('The Weft thread: pass it to `weft-reply`, or open it in the Weft app.'),
  content: z.string().describe("The agent's final answer."),
});
export type WeftToolOutput = z.infer<typeof WeftToolOutput>;

export const WEFT_TOOL_DESCRIPTION =
  'Run a Weft session: start a new thread in a project and work on the prompt until done. Commands run in ' +
  "Weft's sandbox; approvals are asked through elicitation. Answers with the final message and the threadId.";
export const WEFT_REPLY_TOOL_DESCRIPTION =
  'Continue a Weft thread with a new prompt, by the threadId a `weft` call answered.';
