import { defineConfig } from 'vitest/config';
import { readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

// Four layers (docs/build.md), run one after the other: unit (a module alone) and integration (the sandbox built
// in-process on port 0, called over HTTP) together, then end-to-end (the built binary as a subprocess), then load (the
// sandbox at the scale its docs state). End-to-end runs dist/: it builds it first; test/unit/bundle.test.ts reads it as
// files, built again only when it is older than src/ (test/helpers/dist.ts).
export default defineConfig({
  define: { WHSVC_VERSION: JSON.stringify(version) },
  test: {
    // Two cores: end-to-end files start servers and subprocesses; keep the waits generous.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      // No process-wide state in these two layers (no module mocks, no environment or global changed, fake timers put
      // back), so their files share a worker and the modules it loaded: a fresh worker per file, loading src/ again,
      // took three to four times as long. What a failed file leaves going is stopped when it ends. Their files mostly
      // wait (on sockets, and on the limits a user can give, a second at the least): three at a time on two cores took
      // a fifth less time than two (docs/build.md).
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false, maxWorkers: 3 } },
      {
        extends: true,
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], isolate: false, maxWorkers: 3, setupFiles: ['test/in-process-setup.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/global-setup.ts'],
          setupFiles: ['test/e2e-setup.ts'],
          sequence: { groupOrder: 1 },
        },
      },
      // The load tests: waits of the scale they prove (1,200 sends of 500 ms each, 64 at a time) that the fast layers
      // cannot hold; run once the other layers are done, so that nothing else of the suite takes the CPU from them.
      { extends: true, test: { name: 'load', include: ['test/load/**/*.test.ts'], sequence: { groupOrder: 2 } } },
    ],
  },
});
