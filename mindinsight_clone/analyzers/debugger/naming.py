"""Tie tensor file names to graph nodes: kernels to their execution-order / graph names, parameters to theirs.

A file's `op_name` is the kernel's full scope name with `/` replaced by `_` (not reversible: `/_backbone` becomes
`__backbone`), so it is matched against the names of `execution_order/ms_execution_order_graph_<id>.csv` (the
same names the dump's graphs/*.pb carry), transformed the same way:

1. exact: `op_name == kernel.replace("/", "_")`;
2. the rest by scope and type: MindSpore 2.10 names some dump files after it renumbers the kernels
   (`graph_build_<id>.ir`) while the csv and graphs keep the names from before (`graph_before_reset_id_<id>.ir`),
   so the `-op<N>` suffix can differ (3 of 45 kernels of the fixture's train graph, all 15 of its eval graph).
   The files and kernels left over are grouped by their name without `-op<N>`; within a group they are paired in
   order (files by the time their first tensor was written, kernels in execution order).

Kernels left unpaired have no file; files left unpaired keep `node_name` null. Parameter files (`Parameter.<name>`,
the name with `.` replaced by `_`) are matched to the graph's parameter names (`fc1.weight`) the same way.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

_OP_SUFFIX = re.compile(r"-op\d+$")
EXACT = "exact"
PAIRED = "paired"  # same scope and type, -op<N> differs


def flat(name: str) -> str:
    """A full name as dump file names write it."""
    return name.replace("/", "_")


@dataclass(slots=True)
class KernelNames:
    """For one (rank, graph): file op_name -> (kernel full name, execution-order index, how it was matched)."""

    kernels: list[str] = field(default_factory=list)  # execution order
    by_file: dict[str, tuple[str, int, str]] = field(default_factory=dict)
    parameters: dict[str, str] = field(default_factory=dict)  # file op_name of a Parameter -> graph name

    def node_of(self, op_type: str, op_name: str) -> tuple[str | None, int | None, str | None]:
        """(node name, execution-order index, match) of a tensor file's op."""
        if op_type == "Parameter":
            name = self.parameters.get(op_name)
            return (name, None, EXACT if name is not None else None)
        found = self.by_file.get(op_name)
        return (found[0], found[1], found[2]) if found is not None else (None, None, None)


def match_kernels(file_ops: Iterable[tuple[str, int]], kernels: list[str]) -> dict[str, tuple[str, int, str]]:
    """`file_ops`: (op_name, first timestamp) of the kernels that have files; `kernels`: execution order."""
    first: dict[str, int] = {}
    for op_name, stamp in file_ops:
        if op_name not in first or stamp < first[op_name]:
            first[op_name] = stamp
    order = sorted(first, key=lambda name: (first[name], name))
    index = {flat(k): i for i, k in reversed(list(enumerate(kernels)))}
    out: dict[str, tuple[str, int, str]] = {}
    used: set[int] = set()
    for op_name in order:
        i = index.get(op_name)
        if i is not None and i not in used:
            out[op_name] = (kernels[i], i, EXACT)
            used.add(i)
    left_kernels: dict[str, list[int]] = defaultdict(list)
    for i, kernel in enumerate(kernels):
        if i not in used:
            left_kernels[_OP_SUFFIX.sub("", flat(kernel))].append(i)
    left_files: dict[str, list[str]] = defaultdict(list)
    for op_name in order:
        if op_name not in out:
            left_files[_OP_SUFFIX.sub("", op_name)].append(op_name)
    for group, names in left_files.items():
        for op_name, i in zip(names, left_kernels.get(group, []), strict=False):
            out[op_name] = (kernels[i], i, PAIRED)
    return out


def match_parameters(graph_parameters: Iterable[str]) -> dict[str, str]:
    """Parameter file op_name (`moments_fc1_weight`) -> graph parameter name (`moments.fc1.weight`); the first
    parameter wins where two names collapse to one."""
    out: dict[str, str] = {}
    for name in graph_parameters:
        out.setdefault(name.replace(".", "_").replace("/", "_"), name)
    return out
