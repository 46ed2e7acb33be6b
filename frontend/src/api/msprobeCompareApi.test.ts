import { describe, expect, it } from 'vitest'
import { mappingBody } from './msprobeCompareApi'

describe('mappingBody', () => {
  it('sends nothing when matching by name, and the built-in api table without a path', () => {
    expect(mappingBody('', 'configs/x.yaml')).toBeUndefined()
    expect(mappingBody('api-builtin', '')).toEqual({ api: true })
  })
  it('sends a yaml kind with its trimmed path, and nothing while the path is empty', () => {
    expect(mappingBody('api', ' configs/api.yaml ')).toEqual({ api: 'configs/api.yaml' })
    expect(mappingBody('cell', 'configs/cell_mapping.yaml')).toEqual({ cell: 'configs/cell_mapping.yaml' })
    expect(mappingBody('layer', 'l.yaml')).toEqual({ layer: 'l.yaml' })
    expect(mappingBody('data', 'd.yaml')).toEqual({ data: 'd.yaml' })
    expect(mappingBody('cell', '   ')).toBeUndefined()
  })
})
