import { fileURLToPath, URL } from 'node:url'
import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'
import { noEvalCompositor } from './vite-plugins/noEvalCompositor'

// The SPA is built into the Python package and served by the backend:
//   GET /            -> mindinsight_clone/ui/dist/index.html
//   GET /static/<p>  -> mindinsight_clone/ui/dist/static/<p>
// base './' keeps every asset URL relative, so the app also works under --url-path-prefix.
export default defineConfig({
  base: './',
  // noEvalCompositor: no eval/new Function in the bundle (CSP without 'unsafe-eval'; see the plugin).
  plugins: [vue(), noEvalCompositor()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
  build: {
    outDir: '../mindinsight_clone/ui/dist',
    emptyOutDir: true,
    assetsDir: 'static',
    target: 'es2020',
    chunkSizeWarningLimit: 1200,
    sourcemap: false,
    rolldownOptions: {
      output: {
        // Stable, readable vendor chunks: vue (initial), echarts (first chart view),
        // echarts-gl (landscape 3-D only, loaded on demand).
        codeSplitting: {
          groups: [
            { name: 'vue', test: /node_modules[\\/](@vue|vue|vue-router)[\\/]/, priority: 30 },
            // echarts before echarts-gl, so that echarts-gl's chunk depends on echarts' and not the reverse.
            { name: 'echarts', test: /node_modules[\\/](echarts|zrender|tslib)[\\/]/, priority: 20 },
            { name: 'echarts-gl', test: /node_modules[\\/](echarts-gl|claygl)[\\/]/, priority: 10 },
          ],
        },
      },
    },
  },
  server: {
    // `npm run dev` proxies the API to a backend started with `mindinsight-clone start --port 8080`.
    proxy: { '/v1': 'http://127.0.0.1:8080' },
  },
  test: {
    include: ['src/**/*.test.ts'],
  },
} as import('vite').UserConfig)
