import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/api/errors.js';
import { errorReport } from '../../../src/cli/error-report.js';
import { laidOut } from '../../../src/render/wrap.js';
import { argsPasted } from '../../helpers/pasted.js';

describe('errorReport: a 403', () => {
  it("the hint's commands each end their clause: laid out at 40, 60 and 80, each pasted from `whsvc` to its clause's end is exactly its words", () => {
    const error = new ApiError(403, 'insufficient_scope', 'the token lacks webhooks:write', 'webhooks:write');
    for (const profile of ['', ' --profile reader']) {
      const hint = errorReport(error, { profile })!.hint!;
      const extra = profile.trim() === '' ? [] : profile.trim().split(' ');
      for (const columns of [40, 60, 80, 200]) {
        const laid = laidOut({ write: () => true, isTTY: true, columns }, `hint: ${hint}\n`);
        // A line break is the end of what is pasted unless ` \` joins it to the next.
        const commands = laid.split(/(?<! \\)\n/).flatMap((line) => line.match(/\bwhsvc\b[^;]*/g) ?? []);
        expect(commands.map(argsPasted), laid).toEqual([
          ['whsvc', 'login', ...extra, '--client-id', 'ID'],
          ['whsvc', 'auth', 'status', ...extra],
        ]);
      }
    }
  });
});
