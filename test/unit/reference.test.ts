import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandReference } from '../../scripts/reference.js';

const file = new URL('../../docs/reference.md', import.meta.url);

describe('docs/reference.md', () => {
  it('is what the command tree makes now (npm run reference writes it)', () => {
    const made = commandReference();
    if (process.env.UPDATE_REFERENCE === '1') writeFileSync(file, made);
    const written = readFileSync(file, 'utf8');
    expect(written === made, 'docs/reference.md differs from the command tree: run `npm run reference`').toBe(true);
  });
});
