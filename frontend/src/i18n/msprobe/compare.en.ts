// msprobe page, compare tab (issue 35). English.
export const msprobeCompareEn = {
}
