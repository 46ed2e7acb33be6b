// msprobe page, dumps tab (issue 35). English.
export const msprobeDumpsEn = {
}
