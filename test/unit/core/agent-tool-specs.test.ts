// The sub-agent tools Weft offers against those Codex 0.169 offers (test/fixtures/codex-agents-0.169/
// tools.json, captured from the real CLI): the same namespace, functions, arguments and JSON schemas.
// Descriptions are Weft's own words, so they are left out of the comparison.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentFunctionSpecs, agentToolSpecs } from '../../../src-main/core/agents/tool-specs';

type Json = Record<string, unknown>;
const codex = JSON.parse(readFileSync(resolve(__dirname, '../../fixtures/codex-agents-0.169/tools.json'), 'utf8')) as {
  default: Json;
  withRole: Json;
};

/** A schema with every `description` left out. */
function shape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'description')
      .map(([key, v]) => [key, shape(v)]),
  );
}

const role = { reviewer: { description: 'Reviews a change' } };

describe('the sub-agent tools, as Codex 0.169 offers them', () => {
  it('offers one multi_agent_v1 namespace to Responses providers, shaped as Codex offers it', () => {
    const specs = agentToolSpecs('responses', {});
    expect(specs).toHaveLength(1);
    expect(shape(specs[0])).toEqual(shape(codex.default));
  });

  it('adds agent_type when roles are configured, as Codex does', () => {
    const specs = agentToolSpecs('responses', role);
    expect(shape(specs[0])).toEqual(shape(codex.withRole));
    const spawn = agentFunctionSpecs(role).find((t) => t.name === 'spawn_agent');
    const properties = spawn?.parameters['properties'] as Record<string, { description: string }>;
    expect(properties['agent_type']?.description).toContain('reviewer: Reviews a change');
  });

  it('offers the same functions flat to Chat Completions providers', () => {
    const flat = agentToolSpecs('chat', {});
    expect(shape(flat)).toEqual(shape(codex.default['tools']));
    expect(agentFunctionSpecs({}).map((t) => t.name)).toEqual([
      'close_agent',
      'resume_agent',
      'send_input',
      'spawn_agent',
      'wait_agent',
    ]);
  });

  it('describes every tool and argument in its own words', () => {
    const codexTools = codex.withRole['tools'] as { name: string; description: string }[];
    for (const spec of agentFunctionSpecs(role)) {
      expect(spec.description.length, spec.name).toBeGreaterThan(40);
      expect(spec.description).not.toBe(codexTools.find((t) => t.name === spec.name)?.description);
      const properties = (spec.parameters as { properties: Record<string, { description?: string }> }).properties;
      for (const [name, property] of Object.entries(properties))
        expect(property.description?.length ?? 0, `${spec.name}.${name}`).toBeGreaterThan(10);
    }
  });
});
