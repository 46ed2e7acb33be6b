// msprobe page, graphs tab (issue 35). 简体中文.
export const msprobeGraphsZh: Record<string, string> = {
}
