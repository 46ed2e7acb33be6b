// msprobe page, dumps tab (issue 35). 简体中文.
export const msprobeDumpsZh: Record<string, string> = {
}
