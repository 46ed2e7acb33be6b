import { describe, expect, it } from 'vitest'
import { renderMarkdown } from './markdown'

describe('renderMarkdown', () => {
  it('renders tables and code blocks', () => {
    const html = renderMarkdown('| metric | value |\n|---|---:|\n| loss | 0.351 |\n\n```bash\nmsrun --x\n```\n')
    expect(html).toContain('<table>')
    expect(html).toContain('<td style="text-align:right">0.351</td>')
    expect(html).toContain('<code class="language-bash">msrun --x\n</code>')
  })

  it('never passes raw HTML or script URLs through', () => {
    const html = renderMarkdown('a <b>markdown</b> note <script>alert(1)</script> <img src=x onerror=alert(1)>\n\n[x](javascript:alert(1))')
    expect(html).not.toMatch(/<script|<img|<b>|href="javascript/)
    expect(html).toContain('&lt;script&gt;')
    expect(html).toContain('[x](javascript:alert(1))')
  })

  it('shows images as links (nothing is loaded from elsewhere) and opens links in a new tab', () => {
    const html = renderMarkdown('![plot](https://example.com/p.png) [docs](https://example.com)')
    expect(html).not.toContain('<img')
    expect(html).toContain('<a class="md-image" href="https://example.com/p.png" target="_blank" rel="noopener noreferrer">plot</a>')
    expect(html).toContain('<a href="https://example.com" target="_blank" rel="noopener noreferrer">docs</a>')
  })
})
