/**
 * Issue 13 "Identifiers: say where a real value comes from": for every
 * required identifier, the calls whose answers hold a real one — declared
 * links read in reverse, the resource's own list and create, fields named
 * after it — ranked safe first, chained up to two hops, carrying what the
 * caller already sent. Written to data/tools.json as `guidance.producers`.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toToolData } from "../../src/emit/index.js";
import { addGuidance } from "../../src/guidance/index.js";
import { DIRECTORY_ROOT } from "../helpers/corpus.js";
import { modelFrom, SAMPLES } from "../helpers/pipeline.js";

async function producersOf(spec: string) {
  const guided = addGuidance(await modelFrom(spec), { seed: 1 });
  return (tool: string) => {
    const found = guided.tools.find((t) => t.name === tool);
    if (!found) throw new Error(`no tool ${tool}`);
    return found.guidance.producers;
  };
}

describe("identifier producers", () => {
  it("catalogue: an author's id from books (field and declared link), an order's id from creating it", async () => {
    const producers = await producersOf(join(SAMPLES, "catalogue.yaml"));
    const author = producers("get_author")!["authorId"]!;
    // Safe and direct first: every listed book carries author_id.
    expect(author[0]).toEqual({
      tool: "list_books",
      params: {},
      take: "/items/0/author_id",
      note: "its answer holds author_id",
    });
    // The declared link on get_book, read in reverse, chained through list_books for the book id.
    expect(author[1]).toMatchObject({
      tool: "get_book",
      params: { bookId: "$via" },
      take: "/author_id",
      via: { tool: "list_books", take: "/items/0/id" },
    });
    expect(author[1]!.note).toContain("declared link");

    const order = producers("get_order")!["orderId"]!;
    expect(order).toHaveLength(1);
    expect(order[0]).toMatchObject({
      tool: "create_order",
      params: { book_id: "$via" },
      take: "/id",
      via: { tool: "list_books", params: {}, take: "/items/0/id" },
    });
    expect(order[0]!.note).toContain("new resource");

    // The resource's own list comes before creating one.
    expect(producers("get_book")!["bookId"]!.map((p) => p.tool)).toEqual(["list_books", "create_book"]);
    // The typed hint (what info / describe_operation show) names the source.
    const guided = addGuidance(await modelFrom(join(SAMPLES, "catalogue.yaml")), { seed: 1 });
    expect(guided.tools.find((t) => t.name === "get_order")!.guidance.hints.typed["orderId"]!.placeholder).toMatch(
      /placeholder.*real ones: list_books → create_order, at \/id of its answer$/,
    );
    // Nothing for a tool without identifiers.
    expect(producers("list_books")).toBeUndefined();
  });

  it("are written to the tool data", async () => {
    const guided = addGuidance(await modelFrom(join(SAMPLES, "catalogue.yaml")), { seed: 1 });
    const data = guided.tools.map(toToolData);
    expect(data.find((t) => t.name === "get_author")!.guidance.producers!["authorId"]![0]!.tool).toBe("list_books");
  });

  it("ETSI MEC010-2: a GET on a sub-resource gets the collection's list and create", async () => {
    const producers = await producersOf(join(DIRECTORY_ROOT, "etsi.local", "MEC010-2_AppPkgMgmt.json"));
    for (const tool of ["app_pkg_get", "app_pkg_put", "app_package_get"]) {
      expect(
        producers(tool)!["appPkgId"]!.map((p) => [p.tool, p.take]),
        tool,
      ).toEqual([
        ["app_packages_get", "/0/id"],
        ["app_packages_post", "/id"],
      ]);
    }
  });

  it("Azure compute: the producer call carries what the caller sent", async () => {
    const producers = await producersOf(join(DIRECTORY_ROOT, "azure.com", "compute-runCommands.json"));
    expect(producers("virtual_machine_run_commands_get")!["commandId"]![0]).toEqual({
      tool: "virtual_machine_run_commands_list",
      params: {
        location: "$caller.location",
        "api-version": "$caller.api-version",
        subscriptionId: "$caller.subscriptionId",
      },
      take: "/value/0/id",
      note: "lists run commands; take one's id",
    });
  });

  it("GitHub: an issue number from the repository's issues, owner and repo carried", async () => {
    const producers = await producersOf(
      createRequire(import.meta.url).resolve("@octokit/openapi/generated/api.github.com.json"),
    );
    expect(producers("issues_get")!["issue_number"]![0]).toEqual({
      tool: "issues_list_for_repo",
      params: { owner: "$caller.owner", repo: "$caller.repo" },
      take: "/0/number",
      note: "lists issues; take one's number",
    });
  });
});
