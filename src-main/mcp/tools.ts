// MCP tools as the model sees them: one Responses `namespace` per server (`mcp__<server>` holding the
// server's tools), or flat `mcp__<server>__<tool>` functions for Chat Completions providers; plus
// `list_mcp_resources`, `list_mcp_resource_templates` and `read_mcp_resource` while any running server
// has resources. Every call goes through the orchestrator as an `mcpToolCall` item.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { JsonValue } from '../../src-preload/protocol';
import type { FunctionToolSpec, ToolSpec } from '../model/types';
import type { McpCallResult } from '../tools/mcp-run';
import type { ToolSource } from '../tools/registry';
import { functionTool, type ToolHandler } from '../tools/types';
import { errorMessage } from '../util/errors';
import type { McpManager, McpToolEntry } from './manager';
import { toolOutputFor } from './result';

const ToolArgs = z.record(z.string(), JsonValue);

function functionSpec(name: string, entry: McpToolEntry): FunctionToolSpec {
  const parameters: Record<string, unknown> = { ...entry.definition.inputSchema };
  delete parameters['$schema'];
  return {
    type: 'function',
    name,
    description: entry.definition.description ?? entry.definition.title ?? '',
    strict: false,
    parameters,
  };
}

function jsonOf(value: unknown): JsonValue {
  return JsonValue.parse(JSON.parse(JSON.stringify(value ?? null)));
}

/** The SDK's result as the item keeps it. */
export function callResultOf(result: CallToolResult): McpCallResult {
  return {
    content: result.content.map(jsonOf),
    ...(result.structuredContent === undefined ? {} : { structuredContent: jsonOf(result.structuredContent) }),
    ...(result.isError === undefined ? {} : { isError: result.isError }),
    ...(result._meta === undefined ? {} : { _meta: jsonOf(result._meta) }),
  };
}

function toolHandler(manager: McpManager, entry: McpToolEntry): ToolHandler {
  const config = entry.connection.config;
  return functionTool({
    name: entry.flatName,
    // One call at a time per server unless it says it copes with more (Codex's default).
    parallel: config.supports_parallel_tool_calls === true,
    args: ToolArgs,
    spec: functionSpec(entry.flatName, entry),
    handle: (args: z.output<typeof ToolArgs>, _call, ctx) => {
      let raw: CallToolResult | null = null;
      return ctx.orchestrator.runMcpCall(ctx, {
        server: entry.server,
        tool: entry.tool,
        arguments: args,
        approval: config.tools?.[entry.tool]?.approval ?? config.approval ?? 'on-request',
        annotations: entry.definition.annotations,
        call: (signal, onProgress) =>
          manager.withCall(entry.server, ctx, async () => {
            raw = await entry.connection.callTool(entry.tool, args, {
              signal,
              onProgress,
            });
            return callResultOf(raw);
          }),
        output: (_result, durationMs) => toolOutputFor(raw ?? { content: [] }, durationMs),
      });
    },
  });
}

const ServerArgs = z.object({ server: z.string().optional(), cursor: z.string().optional() });
const ReadArgs = z.object({ server: z.string(), uri: z.string() });

function resourceTools(manager: McpManager): ToolHandler[] {
  const listing = (kind: 'resources' | 'templates'): ToolHandler =>
    functionTool({
      name: kind === 'resources' ? 'list_mcp_resources' : 'list_mcp_resource_templates',
      parallel: true,
      args: ServerArgs,
      spec: {
        type: 'function',
        name: kind === 'resources' ? 'list_mcp_resources' : 'list_mcp_resource_templates',
        description:
          kind === 'resources'
            ? 'List the resources (files, records, documents) that the connected MCP servers offer as context. Give `server` to list one server only.'
            : 'List the parameterized resource templates the connected MCP servers offer. Give `server` to list one server only.',
        strict: false,
        parameters: {
          type: 'object',
          properties: {
            server: { type: 'string', description: 'An MCP server name; omit for every server.' },
            cursor: {
              type: 'string',
              description: 'The cursor a previous call returned, for the next page (needs `server`).',
            },
          },
          additionalProperties: false,
        },
      },
      handle: async (args: z.output<typeof ServerArgs>, _call, ctx) => {
        const servers = manager.resourceServers().filter((c) => args.server === undefined || c.name === args.server);
        if (args.server !== undefined && servers.length === 0)
          return { output: `no running MCP server named "${args.server}" has resources`, success: false };
        const out: Record<string, unknown> = {};
        let nextCursor: string | null = null;
        for (const c of servers) {
          try {
            const page =
              kind === 'resources'
                ? await c.listResources(args.cursor, ctx.signal)
                : await c.listResourceTemplates(args.cursor, ctx.signal);
            out[c.name] = 'resources' in page ? page.resources : page.resourceTemplates;
            if (args.server !== undefined) nextCursor = page.nextCursor ?? null;
          } catch (error) {
            if (ctx.signal.aborted) throw error;
            out[c.name] = { error: errorMessage(error) };
          }
        }
        return {
          output: JSON.stringify(
            args.server === undefined
              ? out
              : {
                  server: args.server,
                  [kind === 'resources' ? 'resources' : 'resourceTemplates']: out[args.server],
                  nextCursor,
                },
          ),
          success: true,
        };
      },
    });
  const read = functionTool({
    name: 'read_mcp_resource',
    parallel: true,
    args: ReadArgs,
    spec: {
      type: 'function',
      name: 'read_mcp_resource',
      description: 'Read one resource of an MCP server by its URI (as list_mcp_resources gave it).',
      strict: false,
      parameters: {
        type: 'object',
        properties: {
          server: { type: 'string', description: 'The MCP server name, as configured.' },
          uri: { type: 'string', description: 'The resource URI.' },
        },
        required: ['server', 'uri'],
        additionalProperties: false,
      },
    },
    handle: async (args: z.output<typeof ReadArgs>, _call, ctx) => {
      const c = manager.resourceServers().find((s) => s.name === args.server);
      if (!c) return { output: `no running MCP server named "${args.server}" has resources`, success: false };
      const result = await c.readResource(args.uri, ctx.signal);
      return {
        output: toolOutputFor(
          { content: result.contents.map((resource) => ({ type: 'resource' as const, resource })) },
          0,
        ).slice(1),
        success: true,
      };
    },
  });
  return [listing('resources'), listing('templates'), read];
}

/** The registry's view of a thread's MCP servers. */
export function mcpToolSource(manager: McpManager, wireApi: 'responses' | 'chat'): ToolSource {
  const handlers = (): Map<string, ToolHandler> => {
    const map = new Map<string, ToolHandler>();
    for (const entry of manager.tools()) map.set(entry.flatName, toolHandler(manager, entry));
    if (manager.resourceServers().length > 0) for (const h of resourceTools(manager)) map.set(h.name, h);
    return map;
  };
  return {
    handler: (name) => handlers().get(name),
    specs: (): ToolSpec[] => {
      const entries = manager.tools();
      const resources = manager.resourceServers().length > 0 ? resourceTools(manager).map((h) => h.spec) : [];
      if (wireApi === 'chat') return [...resources, ...entries.map((e) => functionSpec(e.flatName, e))];
      const namespaces = new Map<string, FunctionToolSpec[]>();
      for (const e of entries)
        namespaces.set(e.namespace, [...(namespaces.get(e.namespace) ?? []), functionSpec(e.name, e)]);
      return [
        ...resources,
        ...[...namespaces].map(([name, tools]): ToolSpec => ({
          type: 'namespace',
          name,
          description: `Tools in the ${name} namespace.`,
          tools,
        })),
      ];
    },
    prepare: (signal) => manager.ready(signal),
  };
}
