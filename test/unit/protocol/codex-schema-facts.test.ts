// Weft's generated JSON Schema against the facts written down from Codex 0.169's own
// (`codex app-server generate-json-schema`; test/fixtures/codex-app-server-0.169/schema-facts.json holds
// only names: fields, required fields, enum values, union tags). What both have must agree, so that a
// strictly typed Codex client works against Weft; what only Weft has is listed here, or is a `weft…`
// field marked as an extension.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { generateProtocolJsonSchema } from '../../../src-main/server/json-schema';

const FieldList = z.object({ required: z.array(z.string()), optional: z.array(z.string()) });
const Facts = z.object({
  codexVersion: z.string(),
  objects: z.record(z.string(), FieldList),
  threadItems: z.record(z.string(), FieldList),
  userInputs: z.record(z.string(), FieldList),
  enums: z.record(z.string(), z.array(z.string())),
  unionTags: z.record(z.string(), z.array(z.string())),
  askForApproval: z.object({ strings: z.array(z.string()), objectKeys: z.array(z.string()), granular: FieldList }),
  reasoningEffort: z.object({ type: z.string(), minLength: z.number() }),
  sessionSource: z.object({
    strings: z.array(z.string()),
    objectKeys: z.array(z.string()),
    subAgentStrings: z.array(z.string()),
    subAgentObjectKeys: z.array(z.string()),
    threadSpawn: FieldList,
  }),
});
const facts = Facts.parse(
  JSON.parse(readFileSync(resolve(__dirname, '../../fixtures/codex-app-server-0.169/schema-facts.json'), 'utf8')),
);

type Node = Record<string, unknown>;
const files = generateProtocolJsonSchema() as Record<string, Node>;

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A schema with `$ref`s, one-element `allOf`s and `X | null` unions looked through. */
function resolveNode(file: Node, node: unknown): Node {
  if (!isNode(node)) throw new Error(`not a schema: ${JSON.stringify(node)}`);
  const ref = node['$ref'];
  if (typeof ref === 'string') {
    const name = ref.replace('#/definitions/', '');
    const definitions = file['definitions'];
    const target = ref === '#' ? file : isNode(definitions) ? definitions[name] : undefined;
    return resolveNode(file, target);
  }
  const allOf = node['allOf'];
  if (Array.isArray(allOf) && allOf.length === 1) return resolveNode(file, allOf[0]);
  const anyOf = node['anyOf'];
  if (Array.isArray(anyOf)) {
    const notNull = anyOf.filter((branch) => !(isNode(branch) && branch['type'] === 'null'));
    if (notNull.length === 1) return resolveNode(file, notNull[0]);
  }
  return node;
}

/** `File` or `File.path.to.property` (arrays step into their items). */
function weftSchema(path: string): { file: Node; node: Node } {
  const [fileName, ...steps] = path.split('.');
  const file = files[`${fileName}.json`];
  if (file === undefined) throw new Error(`Weft's schema has no ${fileName}.json`);
  let node = resolveNode(file, file);
  for (const step of steps) {
    if (node['type'] === 'array') node = resolveNode(file, node['items']);
    const properties = node['properties'];
    if (!isNode(properties) || !(step in properties)) throw new Error(`${path}: no property ${step}`);
    node = resolveNode(file, properties[step]);
  }
  if (node['type'] === 'array') node = resolveNode(file, node['items']);
  return { file, node };
}

function fieldsOf(node: Node): { required: string[]; all: string[] } {
  const properties = node['properties'];
  const required = node['required'];
  return {
    all: isNode(properties) ? Object.keys(properties).sort() : [],
    required: Array.isArray(required) ? required.map(String).sort() : [],
  };
}

/** The branches of a union (tagged objects or enums), looked through. */
function branches(file: Node, node: Node): Node[] {
  const list = node['oneOf'] ?? node['anyOf'];
  if (!Array.isArray(list)) return [node];
  return list.flatMap((branch) => branches(file, resolveNode(file, branch)));
}

function tagOf(node: Node): string {
  const properties = node['properties'];
  const type = isNode(properties) ? properties['type'] : undefined;
  if (isNode(type) && typeof type['const'] === 'string') return type['const'];
  if (isNode(type) && Array.isArray(type['enum']) && type['enum'].length === 1) return String(type['enum'][0]);
  throw new Error(`no type tag in ${JSON.stringify(node).slice(0, 120)}`);
}

function enumValues(file: Node, node: Node): string[] {
  return branches(file, node).flatMap((branch) =>
    Array.isArray(branch['enum'])
      ? branch['enum'].map(String)
      : typeof branch['const'] === 'string'
        ? [branch['const']]
        : [],
  );
}

const minus = (a: readonly string[], b: readonly string[]): string[] => a.filter((x) => !b.includes(x)).sort();

/** What Weft sends (results, notifications, server requests): Codex's name → where it is in Weft's schema. */
const OUTPUTS: Record<string, string> = {
  Thread: 'ThreadReadResult.thread',
  Turn: 'TurnStartResult.turn',
  ThreadStartResponse: 'ThreadStartResult',
  ThreadResumeResponse: 'ThreadResumeResult',
  ThreadForkResponse: 'ThreadForkResult',
  ThreadReadResponse: 'ThreadReadResult',
  ThreadListResponse: 'ThreadListResult',
  ThreadRevertResponse: 'ThreadRevertResult',
  TurnStartResponse: 'TurnStartResult',
  ThreadStartedNotification: 'ThreadStartedNotification',
  ThreadRevertedNotification: 'ThreadRevertedNotification',
  TurnStartedNotification: 'TurnStartedNotification',
  TurnCompletedNotification: 'TurnCompletedNotification',
  ItemStartedNotification: 'ItemStartedNotification',
  ItemCompletedNotification: 'ItemCompletedNotification',
  CommandExecutionRequestApprovalParams: 'ItemCommandExecutionRequestApprovalParams',
  FileChangeRequestApprovalParams: 'ItemFileChangeRequestApprovalParams',
  ToolRequestUserInputParams: 'ItemToolRequestUserInputParams',
  ModelListResponse: 'ModelListResult',
  Model: 'ModelListResult.data',
  ReasoningEffortOption: 'ModelListResult.data.supportedReasoningEfforts',
  GetAccountResponse: 'AccountReadResult',
  SkillsListResponse: 'SkillsListResult',
  SkillsListEntry: 'SkillsListResult.data',
  SkillMetadata: 'SkillsListResult.data.skills',
  SkillErrorInfo: 'SkillsListResult.data.errors',
};

/** What Weft accepts (params): Codex's name → Weft's schema. */
const INPUTS: Record<string, string> = {
  ThreadStartParams: 'ThreadStartParams',
  ThreadResumeParams: 'ThreadResumeParams',
  ThreadForkParams: 'ThreadForkParams',
  ThreadReadParams: 'ThreadReadParams',
  ThreadListParams: 'ThreadListParams',
  ThreadRevertParams: 'ThreadRevertParams',
  TurnStartParams: 'TurnStartParams',
  TurnSteerParams: 'TurnSteerParams',
  TurnInterruptParams: 'TurnInterruptParams',
  ModelListParams: 'ModelListParams',
  GetAccountParams: 'AccountReadParams',
  SkillsListParams: 'SkillsListParams',
};

/** Fields only Weft has that are not named `weft…` (older additions, documented in the protocol). */
const WEFT_ONLY_FIELDS: Record<string, string[]> = {
  Model: ['contextWindow'],
  ThreadListResponse: ['backwardsCursor'],
  ThreadForkParams: ['path'],
  // Codex 0.169 has it in its experimental API (`generate-json-schema --experimental`), not in the stable one.
  ThreadReadResponse: ['readState'],
  ThreadResumeParams: ['path'],
  // Codex clients build approval buttons from it, but Codex 0.169's generated schema does not list it.
  CommandExecutionRequestApprovalParams: ['availableDecisions'],
};

/** Item kinds only Weft has: the agent's browser actions. */
const WEFT_ONLY_ITEMS = ['browserAction'];

describe(`Weft's protocol schema against Codex ${facts.codexVersion}'s`, () => {
  it('sends every field Codex requires, and only fields Codex knows or marked Weft ones', () => {
    const problems: string[] = [];
    for (const [codexName, weftPath] of Object.entries(OUTPUTS)) {
      const codex = facts.objects[codexName];
      if (codex === undefined) throw new Error(`no facts for ${codexName}`);
      const weft = fieldsOf(weftSchema(weftPath).node);
      for (const field of minus(codex.required, weft.required))
        problems.push(
          `${weftPath}: Codex requires \`${field}\`${weft.all.includes(field) ? ' (Weft may omit it)' : ''}`,
        );
      const extra = minus(weft.all, [...codex.required, ...codex.optional]).filter((f) => !f.startsWith('weft'));
      if (minus(extra, WEFT_ONLY_FIELDS[codexName] ?? []).length > 0)
        problems.push(`${weftPath}: fields Codex does not know: ${extra.join(', ')}`);
    }
    expect(problems).toEqual([]);
  });

  it('requires no param Codex clients may leave out, and names params as Codex does', () => {
    const problems: string[] = [];
    for (const [codexName, weftPath] of Object.entries(INPUTS)) {
      const codex = facts.objects[codexName];
      if (codex === undefined) throw new Error(`no facts for ${codexName}`);
      const weft = fieldsOf(weftSchema(weftPath).node);
      for (const field of minus(weft.required, codex.required))
        problems.push(`${weftPath}: Weft requires \`${field}\`, Codex does not`);
      for (const field of minus(codex.required, weft.all))
        problems.push(`${weftPath}: Weft does not read the required \`${field}\``);
      const extra = minus(weft.all, [...codex.required, ...codex.optional]).filter((f) => !f.startsWith('weft'));
      if (minus(extra, WEFT_ONLY_FIELDS[codexName] ?? []).length > 0)
        problems.push(`${weftPath}: params Codex does not know: ${extra.join(', ')}`);
    }
    expect(problems).toEqual([]);
  });

  it('shapes the thread items both have as Codex does', () => {
    const { file, node } = weftSchema('ItemCompletedNotification.item');
    const weftItems = new Map(branches(file, node).map((branch) => [tagOf(branch), fieldsOf(branch)]));
    const problems: string[] = [];
    for (const [tag, weft] of weftItems) {
      const codex = facts.threadItems[tag];
      if (codex === undefined) {
        // Weft's own kinds (recorded in `weft_item_completed` lines, which Codex skips).
        if (!WEFT_ONLY_ITEMS.includes(tag)) problems.push(`item ${tag} is unknown to Codex`);
        continue;
      }
      for (const field of minus(codex.required, weft.required)) problems.push(`${tag}: Codex requires \`${field}\``);
      const extra = minus(weft.all, [...codex.required, ...codex.optional]).filter((f) => !f.startsWith('weft'));
      if (extra.length > 0) problems.push(`${tag}: fields Codex does not know: ${extra.join(', ')}`);
    }
    expect(problems).toEqual([]);
    expect([...weftItems.keys()].sort()).toEqual([
      'agentMessage',
      'browserAction',
      'collabAgentToolCall',
      'commandExecution',
      'contextCompaction',
      'enteredReviewMode',
      'exitedReviewMode',
      'fileChange',
      'hookPrompt',
      'imageView',
      'mcpToolCall',
      'plan',
      'reasoning',
      'userMessage',
      'webSearch',
    ]);
  });

  it("accepts Codex's UserInput kinds except audio, with Codex's fields", () => {
    const { file, node } = weftSchema('TurnStartParams.input');
    const weftInputs = new Map(branches(file, node).map((branch) => [tagOf(branch), fieldsOf(branch)]));
    expect(minus(Object.keys(facts.userInputs), [...weftInputs.keys()])).toEqual(['audio', 'localAudio']);
    // Codex's image takes `url` or `fileId` (one of them required); Weft takes `url`.
    const alsoRequired: Record<string, string[]> = { image: ['url'] };
    for (const [tag, weft] of weftInputs) {
      const codex = facts.userInputs[tag];
      expect(codex, tag).toBeDefined();
      expect(minus(weft.required, [...(codex?.required ?? []), ...(alsoRequired[tag] ?? [])]), tag).toEqual([]);
      expect(
        minus(weft.all, [...(codex?.required ?? []), ...(codex?.optional ?? []), ...(alsoRequired[tag] ?? [])]),
        tag,
      ).toEqual([]);
    }
  });

  it("takes Codex's enum values and sends none Codex does not know", () => {
    const valuesAt = (path: string): string[] => {
      const { file, node } = weftSchema(path);
      return enumValues(file, node).sort();
    };
    // Accepted: every value a Codex client may send.
    expect(minus(facts.enums['ThreadSortKey'] ?? [], valuesAt('ThreadListParams.sortKey'))).toEqual([]);
    expect(minus(facts.enums['ApprovalsReviewer'] ?? [], valuesAt('ThreadStartParams.approvalsReviewer'))).toEqual([]);
    expect(valuesAt('ThreadStartParams.sandbox')).toEqual([...(facts.enums['SandboxMode'] ?? [])].sort());
    // Sent: only values Codex knows.
    const sent: Record<string, string> = {
      TurnStatus: 'TurnStartResult.turn.status',
      ApprovalsReviewer: 'ThreadStartResult.approvalsReviewer',
      SkillScope: 'SkillsListResult.data.skills.scope',
      ThreadActiveFlag: 'ThreadStatusChangedNotification.status',
    };
    for (const [codexName, path] of Object.entries(sent)) {
      const codexValues = facts.enums[codexName] ?? [];
      const { file, node } = weftSchema(path);
      const values =
        codexName === 'ThreadActiveFlag'
          ? branches(file, node).flatMap((b) =>
              tagOf(b) === 'active'
                ? enumValues(
                    file,
                    resolveNode(file, resolveNode(file, (b['properties'] as Node)['activeFlags'])['items']),
                  )
                : [],
            )
          : enumValues(file, node);
      expect(values.length, codexName).toBeGreaterThan(0);
      expect(minus(values, codexValues), codexName).toEqual([]);
    }
    const item = weftSchema('ItemCompletedNotification.item');
    const statusOf = (tag: string): string[] => {
      const branch = branches(item.file, item.node).find((b) => tagOf(b) === tag);
      return branch ? enumValues(item.file, resolveNode(item.file, (branch['properties'] as Node)['status'])) : [];
    };
    expect(minus(statusOf('commandExecution'), facts.enums['CommandExecutionStatus'] ?? [])).toEqual([]);
    expect(minus(statusOf('fileChange'), facts.enums['PatchApplyStatus'] ?? [])).toEqual([]);
    expect(minus(statusOf('mcpToolCall'), facts.enums['McpToolCallStatus'] ?? [])).toEqual([]);
    expect(statusOf('collabAgentToolCall').sort()).toEqual(
      [...(facts.enums['CollabAgentToolCallStatus'] ?? [])].sort(),
    );
    for (const [codexName, path] of Object.entries({
      SandboxPolicy: 'ThreadStartResult.sandbox',
      ThreadStatus: 'ThreadStatusChangedNotification.status',
      Account: 'AccountReadResult.account',
    })) {
      const { file, node } = weftSchema(path);
      expect(minus(branches(file, node).map(tagOf), facts.unionTags[codexName] ?? []), codexName).toEqual([]);
    }
  });

  it("sends Codex's approval policies, accepts them with the granular object, and marks on-failure as Weft's", () => {
    const sent = weftSchema('ThreadStartResult.approvalPolicy');
    const sentBranches = branches(sent.file, sent.node);
    expect(enumValues(sent.file, sent.node).sort()).toEqual([...facts.askForApproval.strings].sort());
    const granular = sentBranches.find((b) => isNode(b['properties']) && 'granular' in b['properties']);
    expect(granular && Object.keys(granular['properties'] as Node)).toEqual(facts.askForApproval.objectKeys);
    expect(fieldsOf(resolveNode(sent.file, (granular?.['properties'] as Node)['granular'])).required).toEqual(
      facts.askForApproval.granular.required,
    );

    const accepted = weftSchema('TurnStartParams.approvalPolicy');
    expect(minus(facts.askForApproval.strings, enumValues(accepted.file, accepted.node))).toEqual([]);
    expect(
      branches(accepted.file, accepted.node).some((b) => isNode(b['properties']) && 'granular' in b['properties']),
    ).toBe(true);
    const weftPolicy = weftSchema('ThreadStartResult.weftApprovalPolicy');
    expect(weftPolicy.node['x-weft-extension-values']).toEqual(['on-failure']);
    expect(minus(enumValues(weftPolicy.file, weftPolicy.node), facts.askForApproval.strings)).toEqual(['on-failure']);
  });

  it("shapes a sub-agent's collab items and its Thread's source as Codex does", () => {
    const item = weftSchema('ItemCompletedNotification.item');
    const collab = branches(item.file, item.node).find((b) => tagOf(b) === 'collabAgentToolCall');
    if (collab === undefined) throw new Error('no collabAgentToolCall item');
    const property = (node: Node, name: string): Node => resolveNode(item.file, (node['properties'] as Node)[name]);
    // Weft uses the v1 tools; the values it sends are Codex's.
    expect(minus(enumValues(item.file, property(collab, 'tool')), facts.enums['CollabAgentTool'] ?? [])).toEqual([]);
    expect(enumValues(item.file, property(collab, 'tool'))).toEqual([
      'spawnAgent',
      'sendInput',
      'resumeAgent',
      'wait',
      'closeAgent',
    ]);
    const state = resolveNode(item.file, property(collab, 'agentsStates')['additionalProperties']);
    expect(fieldsOf(state)).toEqual({ all: ['message', 'status'], required: ['message', 'status'] });
    expect(enumValues(item.file, property(state, 'status')).sort()).toEqual(
      [...(facts.enums['CollabAgentStatus'] ?? [])].sort(),
    );

    const source = weftSchema('ThreadReadResult.thread.source');
    const sourceBranches = branches(source.file, source.node);
    const objectKeys = (list: Node[]): string[] =>
      list.flatMap((b) => (b['type'] === 'object' && isNode(b['properties']) ? Object.keys(b['properties']) : []));
    expect(objectKeys(sourceBranches)).toEqual(facts.sessionSource.objectKeys);
    // Weft sends its own source strings too ("appServer", "exec", a Codex thread's "cli"): any string.
    expect(sourceBranches.some((b) => b['type'] === 'string' && b['enum'] === undefined)).toBe(true);
    const subAgent = sourceBranches.find((b) => isNode(b['properties']) && 'subAgent' in b['properties']);
    if (subAgent === undefined) throw new Error('no subAgent source');
    const subBranches = branches(source.file, resolveNode(source.file, (subAgent['properties'] as Node)['subAgent']));
    expect(enumValues(source.file, { oneOf: subBranches })).toEqual(facts.sessionSource.subAgentStrings);
    expect(objectKeys(subBranches)).toEqual(facts.sessionSource.subAgentObjectKeys);
    const spawn = subBranches.find((b) => isNode(b['properties']) && 'thread_spawn' in b['properties']);
    const spawnFields = fieldsOf(resolveNode(source.file, (spawn?.['properties'] as Node)['thread_spawn']));
    expect(spawnFields).toEqual({
      all: [...facts.sessionSource.threadSpawn.required, ...facts.sessionSource.threadSpawn.optional].sort(),
      required: facts.sessionSource.threadSpawn.required,
    });
  });

  it('takes any non-empty reasoning effort, as Codex does', () => {
    const { node } = weftSchema('TurnStartParams.effort');
    expect({ type: node['type'], minLength: node['minLength'] }).toEqual(facts.reasoningEffort);
  });

  it('marks every weft… field as a Weft extension', () => {
    const unmarked: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((child, i) => walk(child, `${where}[${i}]`));
      if (!isNode(node)) return;
      const properties = node['properties'];
      if (isNode(properties)) {
        for (const [name, property] of Object.entries(properties)) {
          if (name.startsWith('weft') && !(isNode(property) && property['x-weft-extension'] === true))
            unmarked.push(`${where}.${name}`);
        }
      }
      for (const [key, child] of Object.entries(node)) walk(child, `${where}/${key}`);
    };
    for (const [name, file] of Object.entries(files)) walk(file, name);
    expect(unmarked).toEqual([]);
  });
});
