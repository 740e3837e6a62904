// A quick check for the response items that make up most of a long history (messages, reasoning, tool
// calls and their outputs). Parsing 20,000 items with the protocol's zod schemas costs a third of a resume;
// these checks accept an item only when it has exactly the shape the schema requires for its type (same
// required fields, same types), and say "not sure" otherwise — the caller then parses it with the schema,
// which stays the authority (unknown types and content parts always go that way).
import type { ResponseItem } from '../../src-preload/protocol';

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isNullishStr = (v: unknown): boolean => v === undefined || v === null || typeof v === 'string';

/** `input_text`, `output_text` and `input_image` parts only (anything else: ask the schema). */
function isKnownContent(v: unknown): boolean {
  if (!isObj(v)) return false;
  switch (v['type']) {
    case 'input_text':
      return isStr(v['text']);
    case 'output_text':
      return isStr(v['text']) && (v['annotations'] === undefined || Array.isArray(v['annotations']));
    case 'input_image':
      return isStr(v['image_url']) && isNullishStr(v['detail']);
    default:
      return false;
  }
}

function isContentList(v: unknown): boolean {
  return Array.isArray(v) && v.every(isKnownContent);
}

const ROLES: ReadonlySet<unknown> = new Set(['user', 'assistant', 'developer', 'system']);

/** True when `v` certainly is a ResponseItem of one of the common types. */
export function isCommonResponseItem(v: unknown): v is ResponseItem {
  if (!isObj(v)) return false;
  switch (v['type']) {
    case 'message':
      return ROLES.has(v['role']) && isContentList(v['content']) && isNullishStr(v['id']) && isNullishStr(v['phase']);
    case 'function_call':
      return isStr(v['name']) && isStr(v['arguments']) && isStr(v['call_id']) && isNullishStr(v['id']);
    case 'function_call_output':
    case 'custom_tool_call_output':
      return isStr(v['call_id']) && (isStr(v['output']) || isContentList(v['output']));
    case 'custom_tool_call':
      return (
        isStr(v['call_id']) &&
        isStr(v['name']) &&
        isStr(v['input']) &&
        isNullishStr(v['id']) &&
        isNullishStr(v['status'])
      );
    case 'reasoning': {
      const summary = v['summary'];
      const content = v['content'];
      return (
        Array.isArray(summary) &&
        summary.every((s) => isObj(s) && s['type'] === 'summary_text' && isStr(s['text'])) &&
        (content === undefined ||
          content === null ||
          (Array.isArray(content) && content.every((c) => isObj(c) && isStr(c['type']) && isStr(c['text'])))) &&
        isNullishStr(v['encrypted_content']) &&
        isNullishStr(v['id'])
      );
    }
    default:
      return false;
  }
}
