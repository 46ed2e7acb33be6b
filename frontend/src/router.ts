// Hash-history routes (`/#/...`). Heavy views are lazy-loaded chunks.
// MindInsight's own routes (e.g. `#/train-manage/scalar?train_id=`) redirect to ours, so old
// links and bookmarks keep working.
import { createRouter, createWebHashHistory, type RouteLocationGeneric, type RouteRecordRaw } from 'vue-router'
import SummaryList from './views/summary/SummaryList.vue'
import { startRunPrefetch } from './composables/runPrefetch'

function withTrainId(name: string) {
  return (to: RouteLocationGeneric) => {
    const query = { ...to.query }
    if (!query.train_id && query.id) query.train_id = query.id
    delete query.id
    return { name, query }
  }
}

const routes: RouteRecordRaw[] = [
  { path: '/', redirect: '/summary-manage' },
  { path: '/summary-manage', name: 'summary', component: SummaryList, meta: { nav: 'summary' } },
  {
    path: '/train-dashboard',
    name: 'dashboard',
    component: () => import('./views/dashboard/TrainDashboard.vue'),
    meta: { nav: 'summary', run: true },
  },
  // partialTags: the page opens a run with its tag lists cut to TAG_LIMIT (composables/runPrefetch.ts)
  {
    path: '/scalars',
    name: 'scalars',
    component: () => import('./views/scalars/ScalarsView.vue'),
    meta: { nav: 'summary', run: true, partialTags: true },
  },
  { path: '/images', name: 'images', component: () => import('./views/images/ImagesView.vue'), meta: { nav: 'summary', run: true } },
  {
    path: '/histograms',
    name: 'histograms',
    component: () => import('./views/histograms/HistogramsView.vue'),
    meta: { nav: 'summary', run: true },
  },
  { path: '/tensors', name: 'tensors', component: () => import('./views/tensors/TensorsView.vue'), meta: { nav: 'summary', run: true } },
  {
    path: '/loss-landscape',
    name: 'landscape',
    component: () => import('./views/landscape/LandscapeView.vue'),
    meta: { nav: 'summary', run: true },
  },
  // TensorBoard kinds (issue 20): one page per kind of a run, and the config diff of several runs.
  { path: '/text', name: 'text', component: () => import('./views/text/TextView.vue'), meta: { nav: 'summary', run: true } },
  {
    path: '/pr-curves',
    name: 'pr-curves',
    component: () => import('./views/pr-curves/PrCurvesView.vue'),
    meta: { nav: 'summary', run: true },
  },
  { path: '/audio', name: 'audio', component: () => import('./views/audio/AudioView.vue'), meta: { nav: 'summary', run: true } },
  {
    path: '/projector',
    name: 'projector',
    component: () => import('./views/projector/ProjectorView.vue'),
    meta: { nav: 'summary', run: true },
  },
  {
    path: '/custom-scalars',
    name: 'custom-scalars',
    component: () => import('./views/custom-scalars/CustomScalarsView.vue'),
    meta: { nav: 'summary', run: true },
  },
  { path: '/mesh', name: 'mesh', component: () => import('./views/mesh/MeshView.vue'), meta: { nav: 'summary', run: true } },
  {
    path: '/config-diff',
    name: 'config-diff',
    component: () => import('./views/config-diff/ConfigDiffView.vue'),
    meta: { nav: 'compare' },
  },
  { path: '/compare-plate', name: 'compare', component: () => import('./views/compare/CompareView.vue'), meta: { nav: 'compare' } },
  // Pages added by others later: placeholders that slot in at the same routes.
  { path: '/graph', name: 'graph', component: () => import('./views/graph/GraphView.vue'), meta: { nav: 'summary', run: true } },
  { path: '/data-map', name: 'data-map', component: () => import('./views/data-map/DataMapView.vue'), meta: { nav: 'summary', run: true } },
  {
    path: '/model-lineage',
    name: 'model-lineage',
    component: () => import('./views/model-lineage/ModelLineageView.vue'),
    meta: { nav: 'model-lineage' },
  },
  {
    path: '/data-lineage',
    name: 'data-lineage',
    component: () => import('./views/data-lineage/DataLineageView.vue'),
    meta: { nav: 'data-lineage' },
  },
  { path: '/profiler', name: 'profiler', component: () => import('./views/profiler/ProfilerView.vue'), meta: { nav: 'summary' } },
  // Precision debugging (issue 22): MindSpore dumps and the model files users export.
  { path: '/debugger', name: 'debugger', component: () => import('./views/debugger/DebuggerView.vue'), meta: { nav: 'debugger' } },
  // msprobe (issue 35): dumps, compare, graph_visualize graphs, trends; tabs by ?tab=
  { path: '/msprobe', name: 'msprobe', component: () => import('./views/msprobe/MsprobeView.vue'), meta: { nav: 'debugger' } },
  { path: '/models', name: 'models', component: () => import('./views/models/ModelsView.vue'), meta: { nav: 'debugger' } },

  // MindInsight 2.3.1 routes -> ours.
  { path: '/train-manage/training-dashboard', redirect: withTrainId('dashboard') },
  { path: '/train-manage/scalar', redirect: withTrainId('scalars') },
  { path: '/train-manage/image', redirect: withTrainId('images') },
  { path: '/train-manage/histogram', redirect: withTrainId('histograms') },
  { path: '/train-manage/tensor', redirect: withTrainId('tensors') },
  { path: '/train-manage/loss-analysis', redirect: withTrainId('landscape') },
  { path: '/train-manage/graph', redirect: withTrainId('graph') },
  { path: '/train-manage/data-map', redirect: withTrainId('data-map') },
  { path: '/compare-analysis/:rest(.*)*', redirect: { name: 'compare' } },
  { path: '/model-traceback', redirect: { name: 'model-lineage' } },
  { path: '/data-traceback', redirect: { name: 'data-lineage' } },
  { path: '/profiling:kind(.*)', redirect: (to) => ({ name: 'profiler', query: to.query }) },
  // MindInsight's offline debugger (`#/offline-debugger?dir=./dump&sessionId=..`): `dir` was the dump folder.
  {
    path: '/offline-debugger',
    redirect: (to) => ({ name: 'debugger', query: typeof to.query.dir === 'string' ? { dump_id: to.query.dir } : {} }),
  },

  { path: '/:pathMatch(.*)*', name: 'not-found', component: () => import('./views/NotFound.vue') },
]

export const router = createRouter({
  history: createWebHashHistory(),
  routes,
  // A new page starts at the top; a control whose state lives in the query (a tab, a toggle, a selected hit)
  // keeps the scroll where it is; back/forward restore it.
  scrollBehavior: (to, from, saved) =>
    saved ?? (to.path === from.path && to.query.train_id === from.query.train_id ? false : { top: 0 }),
})

// A run page's first requests start with the navigation, not after its chunks (composables/runPrefetch.ts).
router.beforeEach((to) => {
  if (to.meta.run && typeof to.query.train_id === 'string') startRunPrefetch(to.query.train_id, !!to.meta.partialTags)
})
