import { describe, expect, it } from 'vitest';
import type { CommandDeps } from '../../../../src/cli/context.js';
import { takingTurns } from '../../../../src/commands/webhooks/shared/account-lock.js';

describe('takingTurns (apply, rotate-secret)', () => {
  it('takes one lock for a service however its base URL is spelled; localhost and 127.0.0.1 are two (no name is looked up)', async () => {
    const keys: string[] = [];
    const config = {
      exclusive: async <T>(key: string, _guards: string, work: () => Promise<T>) => {
        keys.push(key);
        return work();
      },
    } as unknown as CommandDeps['config'];
    const keyOf = async (baseUrl: string) => {
      await takingTurns({ api: { baseUrl } as CommandDeps['api'], config }, async () => {});
      return keys.at(-1);
    };
    const spellings = ['http://127.0.0.1:4010', 'http://127.0.0.1:4010/', 'HTTP://127.0.0.1:4010', 'http://127.0.0.1:4010/v1/..'];
    const spelled: Array<string | undefined> = [];
    for (const spelling of spellings) spelled.push(await keyOf(spelling));
    expect(new Set(spelled).size).toBe(1);
    expect(await keyOf('https://API.example.com:443/prefix/')).toBe(await keyOf('https://api.example.com/prefix'));
    expect(await keyOf('http://localhost:4010')).not.toBe(spelled[0]);
  });
});
