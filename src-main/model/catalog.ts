/** What Weft knows about a model without asking the provider. */
export interface ModelInfo {
  id: string;
  displayName: string;
  contextWindow: number | null;
  /** Accepts `reasoning: {effort, summary}` and returns encrypted reasoning items. */
  supportsReasoning: boolean;
  /** OpenAI models accept freeform (grammar) tools; everything else gets apply_patch as a JSON function. */
  applyPatchToolType: 'freeform' | 'function';
}

const KNOWN: ModelInfo[] = [
  {
    id: 'gpt-5.1-codex',
    displayName: 'GPT-5.1 Codex',
    contextWindow: 272_000,
    supportsReasoning: true,
    applyPatchToolType: 'freeform',
  },
  {
    id: 'gpt-5.1-codex-mini',
    displayName: 'GPT-5.1 Codex Mini',
    contextWindow: 272_000,
    supportsReasoning: true,
    applyPatchToolType: 'freeform',
  },
  {
    id: 'gpt-5.1',
    displayName: 'GPT-5.1',
    contextWindow: 272_000,
    supportsReasoning: true,
    applyPatchToolType: 'freeform',
  },
  {
    id: 'gpt-5',
    displayName: 'GPT-5',
    contextWindow: 272_000,
    supportsReasoning: true,
    applyPatchToolType: 'freeform',
  },
  {
    id: 'gpt-5-codex',
    displayName: 'GPT-5 Codex',
    contextWindow: 272_000,
    supportsReasoning: true,
    applyPatchToolType: 'freeform',
  },
  {
    id: 'gpt-4.1',
    displayName: 'GPT-4.1',
    contextWindow: 1_047_576,
    supportsReasoning: false,
    applyPatchToolType: 'freeform',
  },
  { id: 'o3', displayName: 'o3', contextWindow: 200_000, supportsReasoning: true, applyPatchToolType: 'freeform' },
  {
    id: 'o4-mini',
    displayName: 'o4-mini',
    contextWindow: 200_000,
    supportsReasoning: true,
    applyPatchToolType: 'freeform',
  },
];

export function knownModels(): readonly ModelInfo[] {
  return KNOWN;
}

/** Catalog entry, or a guess from the name family for models Weft has not heard of. */
export function modelInfo(id: string): ModelInfo {
  const known = KNOWN.find((m) => m.id === id);
  if (known) return known;
  const reasoningFamily = /^(gpt-5|o\d|codex)/i.test(id);
  return {
    id,
    displayName: id,
    contextWindow: null,
    supportsReasoning: reasoningFamily,
    applyPatchToolType: reasoningFamily ? 'freeform' : 'function',
  };
}
