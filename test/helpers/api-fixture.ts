/** One API description for runtime unit tests: a credential of every kind, each in its own env var. */
import type { ApiData } from "../../templates/server/src/runtime/shared/tool-data.js";

export const TEST_API: ApiData = {
  name: "test-mcp",
  title: "Test",
  version: "1.0.0",
  instructions: "",
  baseUrl: "https://api.example.com/v1",
  baseUrlEnv: "TEST_BASE_URL",
  securitySchemes: [
    { name: "headerKey", kind: "apiKey", in: "header", parameterName: "X-API-Key", env: "TEST_API_KEY" },
    { name: "queryKey", kind: "apiKey", in: "query", parameterName: "api_key", env: "TEST_QUERY_KEY" },
    { name: "cookieKey", kind: "apiKey", in: "cookie", parameterName: "session", env: "TEST_SESSION" },
    { name: "bearer", kind: "bearer", env: "TEST_TOKEN" },
    { name: "basic", kind: "basic", usernameEnv: "TEST_USER", passwordEnv: "TEST_PASSWORD" },
  ],
  timeoutMs: 10_000,
  envPrefix: "TEST",
};
