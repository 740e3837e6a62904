import { readdir, readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClientRequests, ServerNotifications, ServerRequests } from '../../../src-preload/protocol';
import {
  COMBINED_SCHEMA_FILE,
  generateProtocolJsonSchema,
  methodTypeName,
  schemaFileText,
} from '../../../src-main/server/json-schema';

const SNAPSHOT_DIR = resolve(__dirname, '../../snapshots/protocol-schema');
const REGENERATE = 'npx weft app-server generate-json-schema --out test/snapshots/protocol-schema';

function refsIn(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const child of node) refsIn(child, out);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, child] of Object.entries(node)) {
      if (key === '$ref' && typeof child === 'string') out.push(child);
      else refsIn(child, out);
    }
  }
  return out;
}

function definitionsOf(schema: object): Record<string, unknown> {
  const definitions: unknown = Reflect.get(schema, 'definitions');
  return typeof definitions === 'object' && definitions !== null ? { ...definitions } : {};
}

describe('protocol JSON Schema', () => {
  const generated = generateProtocolJsonSchema();

  it('matches the committed snapshot', async () => {
    const committed = (await readdir(SNAPSHOT_DIR)).filter((name) => name.endsWith('.json')).sort();
    const expected = Object.keys(generated).sort();
    const missing = expected.filter((name) => !committed.includes(name));
    const stale = committed.filter((name) => !expected.includes(name));
    const changed: string[] = [];
    for (const name of expected) {
      if (!committed.includes(name)) continue;
      const text = await readFile(resolve(SNAPSHOT_DIR, name), 'utf8');
      const schema = generated[name];
      if (schema === undefined || text !== schemaFileText(schema)) changed.push(name);
    }
    const drift = [
      ...missing.map((name) => `  new (not committed): ${name}`),
      ...changed.map((name) => `  changed: ${name}`),
      ...stale.map((name) => `  no longer generated (delete it): ${name}`),
    ];
    if (drift.length > 0) {
      expect.fail(
        `The protocol's JSON Schema differs from test/snapshots/protocol-schema/:\n${drift.join('\n')}\n` +
          `If the protocol change is intended, regenerate with \`${REGENERATE}\` (after \`npm run build\`) and commit the result.`,
      );
    }
  });

  it('has a params and a result file for every request and a file for every notification', () => {
    for (const method of Object.keys(ClientRequests)) {
      expect(generated).toHaveProperty([`${methodTypeName(method)}Params.json`]);
      expect(generated).toHaveProperty([`${methodTypeName(method)}Result.json`]);
    }
    for (const method of Object.keys(ServerRequests)) {
      expect(generated).toHaveProperty([`${methodTypeName(method)}Params.json`]);
      expect(generated).toHaveProperty([`${methodTypeName(method)}Result.json`]);
    }
    for (const method of Object.keys(ServerNotifications))
      expect(generated).toHaveProperty([`${methodTypeName(method)}Notification.json`]);
  });

  it('resolves every $ref inside the file that holds it', () => {
    for (const [name, schema] of Object.entries(generated)) {
      const definitions = definitionsOf(schema);
      for (const ref of refsIn(schema)) {
        expect(ref, `${name}: ${ref}`).toMatch(/^#\/definitions\//);
        expect(definitions, `${name}: ${ref}`).toHaveProperty([ref.slice('#/definitions/'.length)]);
      }
    }
  });

  it('describes params as sent (defaults optional) and results as produced', () => {
    const params = generated['ThreadListParams.json'];
    expect(params).toMatchObject({ title: 'ThreadListParams', type: 'object' });
    expect(Reflect.get(params ?? {}, 'required')).toBeUndefined();
    const delta = generated['ItemAgentMessageDeltaNotification.json'];
    expect(delta).toEqual({
      $schema: 'http://json-schema.org/draft-07/schema#',
      title: 'ItemAgentMessageDeltaNotification',
      type: 'object',
      properties: {
        threadId: { type: 'string' },
        turnId: { type: 'string' },
        itemId: { type: 'string' },
        delta: { type: 'string' },
      },
      required: ['threadId', 'turnId', 'itemId', 'delta'],
      additionalProperties: false,
    });
    const combined = generated[COMBINED_SCHEMA_FILE];
    expect(Object.keys(definitionsOf(combined ?? {}))).toEqual(
      expect.arrayContaining([
        'ClientRequest',
        'ServerNotification',
        'ServerRequest',
        'Thread',
        'ThreadItem',
        'ThreadStartParams',
      ]),
    );
  });
});
