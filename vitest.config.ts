import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 600_000,
    pool: "forks",
    globalSetup: ["./test/helpers/temp-root.ts"],
    reporters: ["default", "./test/helpers/summary-reporter.ts"],
  },
});
