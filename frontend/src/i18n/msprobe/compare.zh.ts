// msprobe page, compare tab (issue 35). 简体中文.
export const msprobeCompareZh: Record<string, string> = {
  'msprobe.target': '待比对',
  'msprobe.bench': '标杆',
  'msprobe.compareRun': '比对',
  'msprobe.compareFile': '打开 compare_result 文件…',
  'msprobe.open': '打开',
  'msprobe.unmatched': '{n} 行在标杆中没有同名项（按 msprobe 的规则记为 pass）',
  'msprobe.unmatchedMapped': '{n} 行经映射后没有对应的标杆行（按 msprobe 的规则计为 pass）',
  'msprobe.matching': '节点匹配',
  'msprobe.matchByName': '按名称',
  'msprobe.matchApiBuiltin': 'API：msprobe 内置映射表（-am）',
  'msprobe.matchApiYaml': 'API：映射 yaml（-am）',
  'msprobe.matchCell': 'Cell：映射 yaml（-cm）',
  'msprobe.matchLayer': '层：映射 yaml（-lm）',
  'msprobe.matchData': '数据：映射 yaml（-dm）',
  'msprobe.mappingPath': 'summary 根目录下的 yaml 路径',
  'msprobe.crossFrameworkHint':
    '待比对与标杆来自不同框架，节点名称不同，按名称匹配时大多数行没有标杆。请像 msprobe compare -am / -cm / -lm 一样选择映射。',
  'msprobe.filterResult': '结果',
  'msprobe.allResults': '全部结果',
  'msprobe.firstDivergence': '首个差异：',
  'msprobe.showNode': '查看节点',
  'msprobe.noDivergence': '所有行均通过：没有差异。',
  'msprobe.serverCut': '服务器只返回了 {total} 行中的前 {shown} 行（请求上限）；上方的计数包含全部行。',
  'msprobe.compareHint':
    '选择待比对数据和标杆数据（两份数据，或同一份数据的两个步或两张卡），按 msprobe compare 的统计量模式比对；或打开 msprobe 写出的 compare_result 文件。',
}
