/**
 * JSON Schema (draft-07) of the whole wire protocol, generated from the zod method tables so that it
 * cannot drift from what the server validates. `weft app-server generate-json-schema --out DIR` writes
 * it; a snapshot of it is committed under test/snapshots/protocol-schema/.
 *
 * Params are described as a client may send them (`io: 'input'`: defaulted fields optional); results,
 * notifications and server requests as the server produces them (`io: 'output'`), server-request
 * results as the client sends them. Constructs JSON Schema cannot express (brands, refinements,
 * transforms) degrade to the permissive `{}` rather than failing.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import * as protocol from '../../src-preload/protocol';
import { ClientNotifications, ClientRequests, ServerNotifications, ServerRequests } from '../../src-preload/protocol';

export const COMBINED_SCHEMA_FILE = 'weft-protocol.schema.json';
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

type JsonSchema = Record<string, unknown>;
type Io = 'input' | 'output';

/**
 * Shared types given names, so a schema reads `{"$ref": "#/definitions/Thread"}` instead of repeating
 * them inline. Listed roughly from leaves to roots; the order only affects the order of definitions.
 */
const NAMED_TYPES = {
  JsonValue: protocol.JsonValue,
  // Codex's names for Codex's types; Weft's own policy values are `WeftAskForApproval`.
  AskForApproval: protocol.CodexAskForApproval,
  GranularAskForApproval: protocol.GranularAskForApproval,
  WeftAskForApproval: protocol.AskForApproval,
  ApprovalsReviewer: protocol.ApprovalsReviewer,
  SandboxMode: protocol.SandboxMode,
  SandboxPolicy: protocol.SandboxPolicy,
  ReasoningEffort: protocol.ReasoningEffortValue,
  UserInput: protocol.UserInput,
  TokenUsageBreakdown: protocol.TokenUsageBreakdown,
  ThreadTokenUsage: protocol.ThreadTokenUsage,
  WeftModelPrice: protocol.WeftModelPrice,
  WeftCost: protocol.WeftCost,
  WeftModelUsage: protocol.WeftModelUsage,
  CommandAction: protocol.CommandAction,
  ThreadItem: protocol.ThreadItem,
  ThreadStatus: protocol.ThreadStatus,
  GitInfo: protocol.GitInfo,
  TurnError: protocol.TurnError,
  Turn: protocol.Turn,
  Thread: protocol.Thread,
  TurnPlanStep: protocol.TurnPlanStep,
} satisfies Record<string, z.ZodType>;

interface SchemaEntry {
  /** Definition name and file name without `.json`, e.g. `ThreadStartParams`. */
  name: string;
  schema: z.ZodType;
  io: Io;
}

/** `thread/name/set` → `ThreadNameSet`. */
export function methodTypeName(method: string): string {
  return method
    .split('/')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

function protocolEntries(): SchemaEntry[] {
  const entries: SchemaEntry[] = [];
  for (const [method, { params, result }] of Object.entries(ClientRequests)) {
    entries.push({ name: `${methodTypeName(method)}Params`, schema: params, io: 'input' });
    entries.push({ name: `${methodTypeName(method)}Result`, schema: result, io: 'output' });
  }
  for (const [method, params] of Object.entries(ServerNotifications)) {
    entries.push({ name: `${methodTypeName(method)}Notification`, schema: params, io: 'output' });
  }
  for (const [method, { params, result }] of Object.entries(ServerRequests)) {
    entries.push({ name: `${methodTypeName(method)}Params`, schema: params, io: 'output' });
    entries.push({ name: `${methodTypeName(method)}Result`, schema: result, io: 'input' });
  }
  for (const [method, params] of Object.entries(ClientNotifications)) {
    entries.push({ name: `${methodTypeName(method)}ClientNotification`, schema: params, io: 'input' });
  }
  entries.push({ name: 'JsonRpcMessage', schema: protocol.JsonRpcMessage, io: 'input' });
  const seen = new Set<string>();
  for (const { name } of entries) {
    if (seen.has(name)) throw new Error(`two protocol schemas would both be named ${name}; rename a method`);
    seen.add(name);
  }
  return entries;
}

function toSchema(schema: z.ZodType, io: Io, title: string): JsonSchema {
  const registry = z.registry<{ id: string }>();
  for (const [id, named] of Object.entries(NAMED_TYPES)) {
    if (named !== schema) registry.add(named, { id });
  }
  const generated: JsonSchema = z.toJSONSchema(schema, {
    target: 'draft-7',
    io,
    unrepresentable: 'any',
    metadata: registry,
    override: markExtensions,
  });
  const { $schema: _ignored, ...rest } = generated;
  return { $schema: DRAFT_07, title, ...rest };
}

/**
 * Marks what Codex's clients do not know: schemas given `WEFT_EXTENSION` (and enums with
 * `x-weft-extension-values`) keep the mark, and every `weft…` property gets `"x-weft-extension": true`.
 */
function markExtensions(ctx: { zodSchema: unknown; jsonSchema: JsonSchema }): void {
  const meta: unknown = ctx.zodSchema instanceof z.ZodType ? z.globalRegistry.get(ctx.zodSchema) : undefined;
  if (isRecord(meta)) {
    if (meta['x-weft-extension'] === true) ctx.jsonSchema['x-weft-extension'] = true;
    const values = meta['x-weft-extension-values'];
    if (Array.isArray(values)) ctx.jsonSchema['x-weft-extension-values'] = values;
  }
  const properties = ctx.jsonSchema['properties'];
  if (!isRecord(properties)) return;
  for (const [name, property] of Object.entries(properties)) {
    if (name.startsWith('weft') && isRecord(property)) property['x-weft-extension'] = true;
  }
}

/** File name (`ThreadStartParams.json`, …, `weft-protocol.schema.json`) → schema. Deterministic. */
export function generateProtocolJsonSchema(): Record<string, object> {
  const files: Record<string, object> = {};
  const combined = new CombinedSchema();
  for (const entry of protocolEntries()) {
    const schema = toSchema(entry.schema, entry.io, entry.name);
    files[`${entry.name}.json`] = schema;
    combined.add(entry.name, entry.io, schema);
  }
  files[COMBINED_SCHEMA_FILE] = combined.build();
  return files;
}

/** The text written for one schema file: two-space JSON with a final newline. */
export function schemaFileText(schema: object): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** Writes every schema file into `outDir` (created if missing); returns the file names written. */
export async function writeProtocolJsonSchema(outDir: string): Promise<string[]> {
  const files = generateProtocolJsonSchema();
  await mkdir(outDir, { recursive: true });
  const names = Object.keys(files).sort();
  for (const name of names) {
    const schema = files[name];
    if (schema === undefined) continue;
    const target = join(outDir, name);
    const temp = `${target}.${process.pid}.tmp`;
    await writeFile(temp, schemaFileText(schema), 'utf8');
    await rename(temp, target);
  }
  return names;
}

/**
 * The combined file: every per-file schema under `definitions`, with the named types the files share
 * hoisted beside them once. A named type whose input form differs from its output form (a defaulted
 * field is optional on input) gets a second definition, `<Name>_input`. Unnamed definitions zod made
 * for a file (recursion) are kept as `<File>_<name>`.
 */
class CombinedSchema {
  readonly #files: { name: string; io: Io; schema: JsonSchema }[] = [];

  add(name: string, io: Io, schema: JsonSchema): void {
    this.#files.push({ name, io, schema });
  }

  build(): JsonSchema {
    const inputOnly = this.#inputVariants();
    const definitions: Record<string, JsonSchema> = {};
    const place = (name: string, body: JsonSchema): void => {
      const existing = definitions[name];
      if (existing !== undefined && JSON.stringify(existing) !== JSON.stringify(body)) {
        throw new Error(
          `two different schemas would share the definition ${name} in ${COMBINED_SCHEMA_FILE}; name the type in NAMED_TYPES`,
        );
      }
      definitions[name] = body;
    };
    for (const file of this.#files) {
      const { $schema: _ignored, definitions: inner, ...root } = file.schema;
      const bodies = isRecord(inner)
        ? Object.entries(inner).filter((entry): entry is [string, JsonSchema] => isRecord(entry[1]))
        : [];
      const renames = new Map<string, string>();
      for (const [innerName] of bodies) {
        if (!isNamedType(innerName)) renames.set(innerName, `${file.name}_${innerName}`);
        else renames.set(innerName, file.io === 'input' && inputOnly.has(innerName) ? `${innerName}_input` : innerName);
      }
      for (const [innerName, body] of bodies)
        place(renames.get(innerName) ?? innerName, rewriteRefs(body, renames, file.name));
      place(file.name, rewriteRefs(root, renames, file.name));
    }
    const families = {
      ClientRequest: Object.keys(ClientRequests).map((method) =>
        requestShape(method, `${methodTypeName(method)}Params`),
      ),
      ServerNotification: Object.keys(ServerNotifications).map((method) =>
        notificationShape(method, `${methodTypeName(method)}Notification`),
      ),
      ServerRequest: Object.keys(ServerRequests).map((method) =>
        requestShape(method, `${methodTypeName(method)}Params`),
      ),
      ClientNotification: Object.keys(ClientNotifications).map((method) =>
        notificationShape(method, `${methodTypeName(method)}ClientNotification`),
      ),
    };
    const familyDefinitions = Object.fromEntries(
      Object.entries(families).map(([family, shapes]) => [family, { oneOf: shapes }]),
    );
    return {
      $schema: DRAFT_07,
      title: 'WeftProtocol',
      description:
        'Weft app-server protocol (JSON-RPC 2.0 without the "jsonrpc" field). Generated from the zod schemas; do not edit.',
      definitions: { ...familyDefinitions, ...definitions },
    };
  }

  /** Named types whose input form differs from their output form, directly or through a reference. */
  #inputVariants(): Set<string> {
    const forms: Record<Io, Map<string, string>> = { input: new Map(), output: new Map() };
    for (const file of this.#files) {
      const inner = file.schema['definitions'];
      if (!isRecord(inner)) continue;
      for (const [name, body] of Object.entries(inner)) {
        if (isNamedType(name)) forms[file.io].set(name, JSON.stringify(body));
      }
    }
    const distinct = new Set<string>();
    for (const [name, text] of forms.input) {
      const output = forms.output.get(name);
      if (output !== undefined && output !== text) distinct.add(name);
    }
    let grew = true;
    while (grew) {
      grew = false;
      for (const [name, text] of forms.input) {
        if (distinct.has(name)) continue;
        if ([...distinct].some((other) => text.includes(`"#/definitions/${other}"`))) {
          distinct.add(name);
          grew = true;
        }
      }
    }
    return distinct;
  }
}

function isNamedType(name: string): boolean {
  return Object.hasOwn(NAMED_TYPES, name);
}

function requestShape(method: string, paramsDefinition: string): JsonSchema {
  return {
    type: 'object',
    properties: {
      id: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
      method: { type: 'string', const: method },
      params: { $ref: `#/definitions/${paramsDefinition}` },
    },
    required: ['id', 'method'],
  };
}

function notificationShape(method: string, paramsDefinition: string): JsonSchema {
  return {
    type: 'object',
    properties: { method: { type: 'string', const: method }, params: { $ref: `#/definitions/${paramsDefinition}` } },
    required: ['method'],
  };
}

function isRecord(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Copies `value`, pointing `#/definitions/X` at X's new name and a root `#` at `owner`. */
function rewriteRefs(value: JsonSchema, renames: ReadonlyMap<string, string>, owner: string): JsonSchema {
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!isRecord(node)) return node;
    const out: JsonSchema = {};
    for (const [key, child] of Object.entries(node)) {
      out[key] = key === '$ref' && typeof child === 'string' ? rewriteRef(child, renames, owner) : rewrite(child);
    }
    return out;
  };
  const result = rewrite(value);
  return isRecord(result) ? result : {};
}

function rewriteRef(ref: string, renames: ReadonlyMap<string, string>, owner: string): string {
  if (ref === '#') return `#/definitions/${owner}`;
  const prefix = '#/definitions/';
  if (!ref.startsWith(prefix)) return ref;
  const target = ref.slice(prefix.length);
  return `${prefix}${renames.get(target) ?? target}`;
}
