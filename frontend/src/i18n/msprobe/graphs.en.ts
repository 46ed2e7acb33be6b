// msprobe page, graphs tab (issue 35). English.
export const msprobeGraphsEn = {
}
