import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mcpToolReference } from '../../scripts/mcp-reference.js';
import { commandReference } from '../../scripts/reference.js';

const file = new URL('../../docs/reference.md', import.meta.url);
const mcpFile = new URL('../../docs/mcp-tools.md', import.meta.url);

describe('docs/reference.md', () => {
  it('is what the command tree makes now (npm run reference writes it)', () => {
    const made = commandReference();
    if (process.env.UPDATE_REFERENCE === '1') writeFileSync(file, made);
    const written = readFileSync(file, 'utf8');
    expect(written === made, 'docs/reference.md differs from the command tree: run `npm run reference`').toBe(true);
  });
});

describe('docs/mcp-tools.md', () => {
  it("is what whsvc mcp's tool list makes now (npm run reference writes it)", () => {
    const made = mcpToolReference();
    if (process.env.UPDATE_REFERENCE === '1') writeFileSync(mcpFile, made);
    const written = readFileSync(mcpFile, 'utf8');
    expect(written === made, 'docs/mcp-tools.md differs from the tool list: run `npm run reference`').toBe(true);
  });
});
