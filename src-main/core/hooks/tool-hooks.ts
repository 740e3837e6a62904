// The engine's PreToolUse / PostToolUse as the tool router runs them (Codex 0.169's fields:
// `tool_name`, `tool_input`, `tool_use_id`; PostToolUse adds `tool_response` before `tool_use_id`).
import type { ToolHookOutcome, ToolHooks } from '../../tools/types';
import type { HookEngine } from './engine';

const NOTHING: ToolHookOutcome = { blockReason: null, context: [] };

export function toolHooksOf(engine: HookEngine): ToolHooks {
  return {
    preToolUse: async (call, turnId) => {
      engine.rememberCall(call.toolUseId, call.toolName, call.toolInput);
      if (!engine.has('PreToolUse')) return NOTHING;
      return engine.run({
        event: 'PreToolUse',
        turnId,
        target: call.toolName,
        toolUseId: call.toolUseId,
        fields: { tool_name: call.toolName, tool_input: call.toolInput, tool_use_id: call.toolUseId },
      });
    },
    postToolUse: async (call, turnId) => {
      engine.forgetCall(call.toolUseId);
      if (!engine.has('PostToolUse')) return NOTHING;
      return engine.run({
        event: 'PostToolUse',
        turnId,
        target: call.toolName,
        toolUseId: call.toolUseId,
        fields: {
          tool_name: call.toolName,
          tool_input: call.toolInput,
          tool_response: call.toolResponse,
          tool_use_id: call.toolUseId,
        },
      });
    },
  };
}
