import { defineConfig } from 'vitest/config';
import { readFileSync } from 'node:fs';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

// Three layers (docs/build.md): unit (a module alone), integration (the sandbox built in-process on port 0, called over
// HTTP), end-to-end (the built binary as a subprocess). The last runs dist/: it builds it first. test/unit/bundle.test.ts
// reads it as files, built again only when it is older than src/ (test/helpers/dist.ts).
export default defineConfig({
  define: { WHSVC_VERSION: JSON.stringify(version) },
  test: {
    // Two cores: end-to-end files start servers and subprocesses; keep the waits generous.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'], setupFiles: ['test/integration-setup.ts'] } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], globalSetup: ['test/global-setup.ts'], setupFiles: ['test/e2e-setup.ts'] } },
    ],
  },
});
