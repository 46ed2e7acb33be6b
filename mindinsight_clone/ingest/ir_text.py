"""MindSpore's `.ir` text graphs (`MS_DEV_SAVE_GRAPHS`, and `graphs/*.ir` of a dump) -> a ModelGraph.

The format, as MindSpore 2.10 writes it (../shared/fixtures/mindspore_debug/ir/README.md):

```
# IR entry: @kernel_graph0
# Total subgraphs: 1
# Total params: 21
# Params:
%para1_fc3.bias: <Ref[Tensor[Float32]], (10), ref_key=fc3.bias, ...>  :  has_default  :  ...
Total number of nodes: 186
Total number of cnodes: 78
subgraph @kernel_graph0() {
  %1(equiv_15_output) = Conv2D(%para9_inputs0, %0) {instance name: conv2d} primitive_attrs: {...}
      : (<Tensor[Float32], (4, 1, 32, 32)>, ...) -> (<Tensor[Float32], (4, 6, 28, 28)>)
      # Fullname with scope: (Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0)
  Return(%76) ...
}
```

Every statement of a subgraph body (`%N(...) = Op(...)` and `Return(...)`) is a node (their number is the
header's "Total number of cnodes"); its full name comes from `# Fullname with scope:` or `# Scope:`, its output
type from the first `: (...) -> (...)` line. Names of nodes without a full name are `<subgraph>/%N`. Lines that do
not parse are skipped (counted in `facts["unparsed_lines"]`); other text formats (`actor_set/*.ir`) give no nodes.
"""

from __future__ import annotations

import re

from mindinsight_clone.ingest.model_graph import ModelGraph, ModelNode, ModelParameter, numpy_dtype_name

_HEADER = {"ir_entry": re.compile(r"^# IR entry: @(\S+)", re.M),
           "total_subgraphs": re.compile(r"^# Total subgraphs: (\d+)", re.M),
           "total_params": re.compile(r"^# Total params: (\d+)", re.M),
           "total_nodes": re.compile(r"^Total number of nodes: (\d+)", re.M),
           "total_cnodes": re.compile(r"^Total number of cnodes: (\d+)", re.M)}
_PARAM = re.compile(r"^%para\d+_(.+?): <(.*)$")
_SUBGRAPH = re.compile(r"^subgraph @(\S+?)(?:\(| parent:)")
_STATEMENT = re.compile(r"^  (?:(%\d+)(?:\(([^)]*)\))? = )?([^\s(]+)\((.*)$")
_TYPE = re.compile(r"Tensor\[(\w+)\]\]?\s*,\s*\(([-\d,\s]*)\)")
_FULL_NAME = re.compile(r"^\s+# (?:Fullname with scope|Scope): \((.*)\)\s*$")
_IO_TYPES = re.compile(r"^\s+: \(.*\) -> \((.*)\)\s*$")


def parse_ir_text(text: str) -> ModelGraph:
    facts: dict[str, object] = {}
    for key, pattern in _HEADER.items():
        match = pattern.search(text)
        if match:
            facts[key] = int(match.group(1)) if match.group(1).isdigit() else match.group(1)
    graph = ModelGraph(str(facts.get("ir_entry", "")), facts=facts)
    subgraph = ""
    ids: dict[str, str] = {}  # %N -> node name (within the current subgraph)
    node: ModelNode | None = None
    local = ""  # the `%N` of the current statement ("" when it has none)
    typed = False
    unparsed = 0
    used: dict[str, int] = {}  # full names seen (front-end files repeat them across subgraphs)
    for line in text.splitlines():
        if not subgraph:
            param = _PARAM.match(line)
            if param is not None:
                dtype, shape = _tensor_type(param.group(2))
                graph.parameters.append(ModelParameter(param.group(1), shape, dtype))
                continue
            header = _SUBGRAPH.match(line)
            if header is not None:
                subgraph, ids, node = header.group(1), {}, None
            continue
        if line.startswith("}"):
            subgraph, node = "", None
            continue
        statement = _STATEMENT.match(line)
        if statement is not None:
            local_id, _debug, op, rest = statement.groups()
            local = local_id or ""
            name = f"{subgraph}/{local_id or op}" if local_id else f"{subgraph}/{op}-{len(graph.nodes)}"
            node = ModelNode(name, op, inputs=_arguments(rest, ids), subgraph=subgraph)
            graph.nodes.append(node)
            typed = False
            if local_id:
                ids[local_id] = name
            continue
        if node is None or not line.startswith("      "):
            if line.strip() and not line.lstrip().startswith("#"):
                unparsed += 1
            continue
        full = _FULL_NAME.match(line)
        if full is not None:
            _rename(node, full.group(1), local, ids, used)
            continue
        types = _IO_TYPES.match(line)
        if types is not None and not typed:
            node.output_dtype, shape = _tensor_type(types.group(1))
            node.output_shapes = [shape] if types.group(1).strip() else []
            typed = True
    graph.facts["unparsed_lines"] = unparsed
    return graph


def _tensor_type(text: str) -> tuple[str, list[int]]:
    match = _TYPE.search(text)
    if match is None:
        return "", []
    dims = [int(d) for d in re.split(r"[,\s]+", match.group(2).strip()) if d]
    return numpy_dtype_name(match.group(1)), dims


def _arguments(rest: str, ids: dict[str, str]) -> list[str]:
    """The `%N` / `%paraN_name` arguments of a statement (up to its closing parenthesis)."""
    depth, end = 1, len(rest)
    for i, char in enumerate(rest):
        depth += char == "("
        depth -= char == ")"
        if depth == 0:
            end = i
            break
    out = []
    for arg in re.findall(r"%(?:para\d+_[^,)\s]+|\d+)", rest[:end]):
        param = re.match(r"%para\d+_(.+)", arg)
        out.append(param.group(1) if param else ids.get(arg, arg))
    return out


def _rename(node: ModelNode, full_name: str, local: str, ids: dict[str, str], used: dict[str, int]) -> None:
    """Name the node by its full scope name (`#<n>` added when an earlier node has it), keeping the references of
    later statements right: only the current statement's `%N` names it (scanning every id of the subgraph for each
    rename was quadratic: 55 s for a 6.8 MB file of 40,000 statements)."""
    node.full_name = full_name
    count = used.get(full_name, 0)
    used[full_name] = count + 1
    node.name = full_name if not count else f"{full_name}#{count}"
    if local:
        ids[local] = node.name
