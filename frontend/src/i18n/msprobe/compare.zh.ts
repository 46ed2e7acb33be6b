// msprobe page, compare tab (issue 35). 简体中文.
export const msprobeCompareZh: Record<string, string> = {
}
