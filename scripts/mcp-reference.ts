// The tool reference of `whsvc mcp` (docs/mcp-tools.md), made from the tool list itself (src/commands/mcp/catalog.ts):
// each tool's name, what it does, when it is offered, and its arguments as its input schema gives them. A unit test
// (test/unit/reference.test.ts) fails when the file differs from what the list makes now; `npm run reference` writes
// it anew, with docs/reference.md.
import * as z from 'zod';
import { toolsOf } from '../src/commands/mcp/catalog.js';
import type { AnyTool } from '../src/commands/mcp/tools.js';

type Property = { type?: string; items?: Property; enum?: unknown[]; description?: string; minimum?: number; maximum?: number };

/** A JSON Schema type in a few words: `string`, `array of string`, `one of failed, pending`, `integer 1 to 200`. */
function typeOf(property: Property): string {
  if (property.enum) return `one of ${property.enum.join(', ')}`;
  if (property.type === 'array') return `array of ${property.items ? typeOf(property.items) : 'values'}`;
  if (property.type === 'integer' && property.minimum !== undefined && property.maximum !== undefined)
    return `integer ${property.minimum} to ${property.maximum}`;
  return property.type ?? 'object';
}

/** When the server offers a tool. */
function offeredWhen(tool: AnyTool): string {
  const when: string[] = [];
  if (tool.kind === 'read') when.push('always');
  else when.push('unless --read-only, or the token lacks webhooks:write');
  if (tool.needsSecretDir) when.push('with --secret-dir');
  if (tool.sandbox) when.push('against a whsvc sandbox');
  return when.join('; ');
}

function section(tool: AnyTool): string {
  const schema = z.toJSONSchema(tool.input, { io: 'input' }) as { properties?: Record<string, Property>; required?: string[] };
  const rows = Object.entries(schema.properties ?? {}).map(
    ([name, property]) =>
      `| \`${name}\` | ${typeOf(property)} | ${schema.required?.includes(name) ? 'yes' : 'no'} | ${(property.description ?? '').replaceAll('|', '\\|')} |`,
  );
  const kind = tool.planned ? 'write, planned first' : tool.kind;
  return [
    `## \`${tool.name}\``,
    '',
    `**${tool.title}.** ${tool.description}`,
    '',
    `Kind: ${kind}${tool.destructive ? ' (can delete what cannot be had again)' : ''}. Offered: ${offeredWhen(tool)}.`,
    '',
    ...(rows.length === 0 ? ['No arguments.'] : ['| argument | type | required | meaning |', '|---|---|---|---|', ...rows]),
    '',
  ].join('\n');
}

export function mcpToolReference(): string {
  const tools = toolsOf(z);
  return [
    '# whsvc mcp: the tools',
    '',
    "Every tool `whsvc mcp` can offer, made from the server's tool list by `npm run reference`; a test fails when this",
    'file and the list differ. docs/mcp.md says how to add the server to an agent and how plans work.',
    '',
    ...tools.map((tool) => `- [\`${tool.name}\`](#${tool.name}): ${tool.title}`),
    '',
    ...tools.map(section),
  ].join('\n');
}
