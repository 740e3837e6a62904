// An MCP server's elicitation (a form it wants the person to fill in) as Weft's question dialog
// (`item/tool/requestUserInput`), and the answers back as the form's typed content.
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolRequestUserInputQuestion, ToolRequestUserInputResult } from '../../src-preload/protocol';

type FormParams = Extract<ElicitRequest['params'], { requestedSchema: unknown }>;
type Field = FormParams['requestedSchema']['properties'][string];

const YES = 'Yes';
const NO = 'No';

function choices(field: Field): { label: string; value: string }[] | null {
  if ('oneOf' in field && Array.isArray(field.oneOf))
    return field.oneOf.map((o) => ({ label: o.title, value: o.const }));
  if ('enum' in field && Array.isArray(field.enum)) {
    const names = 'enumNames' in field && Array.isArray(field.enumNames) ? field.enumNames : [];
    return field.enum.map((value, i) => ({ label: names[i] ?? value, value }));
  }
  if (field.type === 'array' && 'items' in field) {
    const items = field.items;
    if ('anyOf' in items) return items.anyOf.map((o) => ({ label: o.title, value: o.const }));
    return items.enum.map((value) => ({ label: value, value }));
  }
  if (field.type === 'boolean')
    return [
      { label: YES, value: 'true' },
      { label: NO, value: 'false' },
    ];
  return null;
}

/** The form's fields as questions, in the schema's order. */
export function elicitationQuestions(server: string, params: FormParams): ToolRequestUserInputQuestion[] {
  const required = new Set(params.requestedSchema.required ?? []);
  return Object.entries(params.requestedSchema.properties).map(([key, field]) => {
    const options = choices(field);
    const title = field.title ?? key;
    const hint = field.description ? ` — ${field.description}` : '';
    return {
      id: key,
      header: title.slice(0, 12),
      question: `${server}: ${params.message}\n${title}${hint}${required.has(key) ? ' (required)' : ''}`,
      isOther: options === null || field.type === 'array',
      isSecret: false,
      options: options === null ? null : options.map((o) => ({ label: o.label, description: '' })),
    };
  });
}

/**
 * The person's answers as the form's content; `decline` when nothing was answered or a required field
 * is missing or a value does not fit its type.
 */
export function elicitationResult(params: FormParams, answer: ToolRequestUserInputResult): ElicitResult {
  const content: Record<string, string | number | boolean | string[]> = {};
  for (const [key, field] of Object.entries(params.requestedSchema.properties)) {
    const given = answer.answers[key]?.answers.filter((a) => a !== '') ?? [];
    if (given.length === 0) continue;
    const options = choices(field) ?? [];
    const valueOf = (label: string): string => options.find((o) => o.label === label)?.value ?? label;
    const first = valueOf(given[0] ?? '');
    switch (field.type) {
      case 'boolean':
        content[key] = first === 'true' || /^(y|yes|true)$/i.test(first);
        break;
      case 'number':
      case 'integer': {
        const n = Number(first);
        if (!Number.isFinite(n) || (field.type === 'integer' && !Number.isInteger(n))) return { action: 'decline' };
        content[key] = n;
        break;
      }
      case 'array':
        content[key] = given.map(valueOf);
        break;
      default:
        content[key] = first;
    }
  }
  if (Object.keys(content).length === 0) return { action: 'decline' };
  for (const key of params.requestedSchema.required ?? []) if (!(key in content)) return { action: 'decline' };
  return { action: 'accept', content };
}
