export declare function looksRandom(value: string): boolean;
export declare function measureRealism(
  tools: Array<{
    name: string;
    inputSchema: Record<string, unknown>;
    guidance?: { examples?: { full?: Record<string, unknown> } };
  }>,
): {
  strings: number;
  random: number;
  share: number;
  examples: Array<{ tool: string; path: string; value: string }>;
};
export declare function realismSpecs(): Array<[string, string]>;
export declare function guidedTools(spec: string): Promise<unknown[]>;
