"""Slot names of an msprobe dump entry as msprobe compare names its rows (msprobe 26.2 core/compare/utils.py
`op_item_parse`): every element of a nested list gets `.<i>` (a one-element list too), kwargs `.<name>`, and a
parameters_grad gradient only its parameter's name."""

from __future__ import annotations

from mindinsight_clone.analyzers.debugger.msprobe_compare import named_slots
from mindinsight_clone.ingest.msprobe_dump import Node, _slots

T = {"type": "mindspore.Tensor", "dtype": "Float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0}


def test_rows_are_named_as_msprobe_names_them() -> None:
    forward = Node("Functional.cat.0.forward", _slots({
        "input_args": [[T], [T, T], T],
        "input_kwargs": {"dims": [{"type": "int", "value": 1}], "axis": {"type": "int", "value": 0}},
        "output": [T],
    }))
    assert [name for name, _ in named_slots(forward)] == [
        "Functional.cat.0.forward.input.0.0", "Functional.cat.0.forward.input.1.0",
        "Functional.cat.0.forward.input.1.1", "Functional.cat.0.forward.input.2",
        "Functional.cat.0.forward.input.dims.0", "Functional.cat.0.forward.input.axis",
        "Functional.cat.0.forward.output.0"]
    grad = Node("Cell.fc.Dense.parameters_grad.0", _slots({"weight": [T], "bias": [T]}))
    assert [name for name, _ in named_slots(grad)] == ["Cell.fc.Dense.parameters_grad.0.weight",
                                                       "Cell.fc.Dense.parameters_grad.0.bias"]
