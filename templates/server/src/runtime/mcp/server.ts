/**
 * The MCP layer over a `ToolRuntime`: an SDK `Server` whose tools/list and
 * tools/call handlers delegate to the runtime. Cheap to create, so the
 * stateless HTTP transport builds one per request.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import type { ConfirmationAnswer } from "../call/outcomes.js";
import type { ToolsFile } from "../shared/tool-data.js";
import { createToolRuntime, type ServerOptions, type ToolRuntime } from "../server/runtime.js";

const CONFIRM_SCHEMA = {
  type: "object" as const,
  properties: {
    confirm: { type: "boolean" as const, title: "Confirm", description: "Run this destructive operation." },
  },
  required: ["confirm"],
};

/** A `Server` over an existing runtime: cheap, so HTTP can create one per request. */
export function createServerFromRuntime(runtime: ToolRuntime): Server {
  const { api } = runtime.toolsFile;
  const server = new Server(
    { name: api.name, title: api.title, version: api.version },
    { capabilities: { tools: {} }, instructions: runtime.instructions },
  );

  const confirm = async (message: string, signal: AbortSignal): Promise<"accept" | ConfirmationAnswer> => {
    const elicitation = server.getClientCapabilities()?.elicitation;
    // An empty `elicitation: {}` (clients before form/url modes) means form mode; elicitInput insists on `form`.
    const answer: ElicitResult = elicitation?.form
      ? await server.elicitInput({ mode: "form", message, requestedSchema: CONFIRM_SCHEMA }, { signal })
      : await server.request({ method: "elicitation/create", params: { message, requestedSchema: CONFIRM_SCHEMA } }, ElicitResultSchema, { signal });
    if (answer.action !== "accept") return answer.action;
    return answer.content?.["confirm"] === true ? "accept" : "decline";
  };

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: runtime.listTools() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const elicitation = server.getClientCapabilities()?.elicitation;
    const canAsk = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
    const progressToken = request.params._meta?.progressToken;
    const progress =
      progressToken === undefined
        ? undefined
        : (value: number, total: number | undefined, message: string) =>
            extra.sendNotification({ method: "notifications/progress", params: { progressToken, progress: value, ...(total !== undefined && { total }), message } });
    return runtime.callTool(request.params.name, request.params.arguments, { signal: extra.signal, ...(canAsk && { confirm }), ...(progress && { progress }) });
  });
  return server;
}

export function createServer(toolsFile: ToolsFile, options: ServerOptions = {}): Server {
  return createServerFromRuntime(createToolRuntime(toolsFile, options));
}
