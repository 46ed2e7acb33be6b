// Markdown of text summaries, rendered safely: markdown-it with raw HTML off (`<b>` in a text shows as the
// characters `<b>`), its link check (no javascript:, vbscript:, file: or data: URLs), links opened in a new
// tab without the opener, and images shown as links: the page loads nothing from elsewhere (the CSP would
// refuse it anyway, with a console error).
import MarkdownIt from 'markdown-it'

const md = new MarkdownIt({ html: false, linkify: false, typographer: false, breaks: false })

const defaultLinkOpen = md.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options))
md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  tokens[idx].attrSet('target', '_blank')
  tokens[idx].attrSet('rel', 'noopener noreferrer')
  return defaultLinkOpen(tokens, idx, options, env, self)
}
md.renderer.rules.image = (tokens, idx) => {
  const token = tokens[idx]
  const src = String(token.attrGet("src") ?? "")
  const alt = token.content || src
  const esc = md.utils.escapeHtml
  return `<a class="md-image" href="${esc(src)}" target="_blank" rel="noopener noreferrer">${esc(alt)}</a>`
}

export function renderMarkdown(text: string): string {
  return md.render(text)
}
