export interface BuildPart {
  name: string;
  what: string;
  sources: string[];
  outputs: string[];
  build(root: string): void | Promise<void>;
}
export const PARTS: BuildPart[];
export function newestMtime(path: string): number;
export function whyBuild(root: string, part: BuildPart): string | null;
export function buildStale(options?: { root?: string; parts?: BuildPart[]; all?: boolean; log?: (line: string) => void }): Promise<string[]>;
