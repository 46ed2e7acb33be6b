// The toolbar of a graph card (the model graph, the dataset graph): the card full screen, and the drawing
// (GraphCanvas) downloaded as SVG or PNG named `<fileBase>.svg|png`.
import { onBeforeUnmount, ref, type Ref } from 'vue'
import { downloadDataUrl, downloadText } from '@/lib/download'

export function useCardTools(
  card: Ref<HTMLElement | null>,
  canvas: Ref<{ toSvg(): string; toPng(): Promise<string> } | null>,
  fileBase: () => string,
) {
  const fullscreen = ref(false)
  function toggleFullscreen(): void {
    if (document.fullscreenElement) void document.exitFullscreen()
    else void card.value?.requestFullscreen?.().catch(() => undefined)
  }
  function onFs(): void {
    fullscreen.value = document.fullscreenElement === card.value
  }
  document.addEventListener('fullscreenchange', onFs)
  onBeforeUnmount(() => document.removeEventListener('fullscreenchange', onFs))

  function exportSvg(): void {
    const svg = canvas.value?.toSvg()
    if (svg) downloadText(fileBase() + '.svg', svg, 'image/svg+xml')
  }
  async function exportPng(): Promise<void> {
    const url = await canvas.value?.toPng().catch(() => '')
    if (url) downloadDataUrl(fileBase() + '.png', url)
  }
  return { fullscreen, toggleFullscreen, exportSvg, exportPng }
}
