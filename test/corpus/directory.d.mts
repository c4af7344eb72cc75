export declare const DIRECTORY_ROOT: string;
export declare function allDirectorySpecs(): string[];
export declare function sampleDirectorySpecs(count: number, options?: { maxBytes?: number; offset?: number }): string[];
export declare function specLabel(path: string): string;
