import { describe, expect, it } from 'vitest'
import { clusterColumns, clusterRows, linkRows, proposalItems, stepPhases, traceBars, traceRowLabel } from './legacyModel'

describe('stepPhases', () => {
  it('reads a training summary as interval, fp+bp, tail', () => {
    const p = stepPhases({
      total_time: 205.38, iteration_interval: 0.2, iteration_interval_percent: '0.1%', fp_and_bp: 118,
      fp_and_bp_percent: '57.48%', tail: 87.1, tail_percent: '42.42%', total_steps: 322,
    })
    expect(p.map((x) => [x.key, x.ms, x.percent])).toEqual([
      ['iteration_interval', 0.2, '0.1%'], ['fp_and_bp', 118, '57.48%'], ['tail', 87.1, '42.42%'],
    ])
  })
  it('reads an inference summary as interval, fp', () => {
    const p = stepPhases({ total_time: 3, iteration_interval: 1, iteration_interval_percent: '33%', fp: 2, fp_percent: '66%', total_steps: 1 })
    expect(p.map((x) => x.key)).toEqual(['iteration_interval', 'fp'])
    expect(stepPhases(undefined)).toEqual([])
  })
})

describe('traceBars', () => {
  const graph = [
    [{ name: '', start: 0, duration: 10 }],
    [{ name: 'iteration_interval', start: 0, duration: 1 }, { name: 'fp_and_bp', start: 1, duration: 6 }, {}],
    [{ name: '', start: 1, duration: 2 }, { name: 'stream_520_parallel_0', start: 3, duration: 1 }, { name: '', start: 4, duration: 6 }],
  ]
  it('keeps the step, the phases and the reduce events, not the gaps nor invalid points', () => {
    const bars = traceBars(graph)
    expect(bars.map((b) => [b.row, b.name, b.start, b.duration])).toEqual([
      [0, 'step', 0, 10], [1, 'iteration_interval', 0, 1], [1, 'fp_and_bp', 1, 6], [2, 'stream_520_parallel_0', 3, 1],
    ])
    expect([0, 1, 2].map((r) => traceRowLabel(r, bars))).toEqual(['step', 'main', 'stream 520'])
  })
})

describe('cluster', () => {
  it('has MindInsight’s columns per parallel mode', () => {
    expect(clusterColumns('data-parallel').columns).toEqual(['iteration_interval', 'fp_and_bp', 'tail'])
    expect(clusterColumns('pipeline-parallel').columns).toHaveLength(6)
  })
  it('puts the ranks in order with their pipeline stage', () => {
    const rows = clusterRows({
      total_step_num: '5', stage_num: 2, 'parallel-mode': 'pipeline-parallel', size: 4,
      info: [3, 0, 2, 1].map((r) => ({ rank_id: r, profiler_dir: 'profiler', step_bottleneck_info: [r, 1, 2, 3, 4, 5] })),
    })
    expect(rows.map((r) => [r.rank, r.stage, r.values[0]])).toEqual([[0, 1, 0], [1, 1, 1], [2, 2, 2], [3, 2, 3]])
    expect(clusterRows(null)).toEqual([])
  })
  it('splits link info into rows', () => {
    expect(linkRows({ '1-0': { SDMA: [2.2, 46069.4, 188040273.5] }, '0-0': { SDMA: [0.07, 554.9, 2.7e8], RDMA: [1, 2, 3] } }))
      .toEqual([
        { src: 1, dst: 0, type: 'SDMA', costMs: 2.2, size: 46069.4, bandwidth: 188040273.5 },
        { src: 0, dst: 0, type: 'SDMA', costMs: 0.07, size: 554.9, bandwidth: 2.7e8 },
        { src: 0, dst: 0, type: 'RDMA', costMs: 1, size: 2, bandwidth: 3 },
      ])
  })
})

describe('proposalItems', () => {
  it('keeps MindInsight’s order, drops the category labels, flattens the cluster strategy', () => {
    const items = proposalItems({
      'step_trace-proposer_type_label': null,
      'step_trace-iter_interval': ['0.5'],
      minddata_device_queue: [1, 1, 0, 1],
      'common-proposer_type_label': null,
      'common-profiler_tutorial': null,
    })
    expect(items.map((i) => i.key)).toEqual(['step_trace-iter_interval', 'minddata_device_queue', 'common-profiler_tutorial'])
    expect(items[1].params).toEqual({ 0: '1', 1: '1', 2: '0', 3: '1' })
    const cluster = proposalItems({
      step_interval: { rank_id: 2, val: 2.43, percent: 22.23 },
      cluster_link: [{ src_rank: 0, des_rank: 1, link_type: 'SDMA', val: 1, percent: 74 }],
      parallel_strategy: { pipeline_parallel_flops: { stage: 2, val: 3, percent: 50 } },
    })
    expect(cluster.map((i) => i.message)).toEqual(['legacy.propose.slowStep', 'legacy.propose.slowLink', 'legacy.propose.stageFlops'])
    expect(cluster[1].params.link_type).toBe('SDMA')
  })
})
