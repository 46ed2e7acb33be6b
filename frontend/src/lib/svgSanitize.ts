// An SVG drawing from text we did not write (Graphviz's rendering of a user's .dot file) made safe to
// put in the page: only drawing elements are kept (links are unwrapped; scripts, foreign objects and
// images go), and no attribute may run code or fetch anything (on*, href, url(...)).
const KEEP = new Set(['svg', 'g', 'title', 'desc', 'defs', 'polygon', 'polyline', 'path', 'ellipse', 'circle', 'rect', 'line', 'text', 'tspan', 'marker'])

function clean(el: Element): void {
  for (const child of [...el.children]) {
    const tag = child.localName
    if (tag === 'a') {
      clean(child)
      child.replaceWith(...child.childNodes)
    } else if (!KEEP.has(tag)) {
      child.remove()
    } else {
      clean(child)
    }
  }
  for (const attr of [...el.attributes]) {
    const name = attr.name.toLowerCase()
    const value = attr.value.toLowerCase()
    if (name.startsWith('on') || name.endsWith('href') || value.includes('url(') || value.includes('javascript:')) el.removeAttribute(attr.name)
  }
}

/** The cleaned `<svg>` element of an SVG text (to append to the document), or null when it does not parse. */
export function sanitizeSvg(text: string): SVGSVGElement | null {
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml')
  const root = doc.documentElement
  if (root.localName !== 'svg' || doc.getElementsByTagName('parsererror').length) return null
  clean(root)
  return document.importNode(root, true) as unknown as SVGSVGElement
}
