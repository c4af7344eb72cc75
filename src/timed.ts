/** Runs one named stage of the pipeline, timing it (src/generate.ts reports each stage's time as progress). */
export type Timed = <T>(stage: string, run: () => T | Promise<T>) => Promise<T>;
