// A test that walks one page or one terminal through several checks in turn: each step named, so that a failure says
// which step it was in.

/** Runs `check`; a failure in it is told with the step's name before its own message. */
export async function step(name: string, check: () => Promise<void> | void): Promise<void> {
  try {
    await check();
  } catch (error) {
    if (error instanceof Error) error.message = `${name}: ${error.message}`;
    throw error;
  }
}

/** The time a test of several steps gets (vitest.config.ts gives one test 60 s): each step was once a test of its own. */
export const GATHERED_TIMEOUT = 180_000;
