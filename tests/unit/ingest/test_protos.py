"""Generated protobuf code: in sync with proto/*.proto, imports package-relatively, runs on upb."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf.internal import api_implementation

from mindinsight_clone.proto import anf_ir_pb2, lineage_pb2, summary_pb2

REPO = Path(__file__).resolve().parents[3]


def test_upb_backend() -> None:
    assert api_implementation.Type() == "upb"


def test_generated_code_is_up_to_date() -> None:
    pytest.importorskip("grpc_tools")
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "gen_protos"), "--check"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_imports_are_package_relative() -> None:
    for module in (anf_ir_pb2, lineage_pb2, summary_pb2):
        source = Path(module.__file__ or "").read_text(encoding="utf-8")
        assert "\nimport anf_ir_pb2" not in source


def test_wire_numbers_mindspore_relies_on() -> None:
    event = summary_pb2.Event.DESCRIPTOR.fields_by_name
    assert {n: event[n].number for n in ("wall_time", "step", "version", "graph_def", "summary")} == {
        "wall_time": 1, "step": 2, "version": 3, "graph_def": 4, "summary": 5}
    value = summary_pb2.Summary.Value.DESCRIPTOR.fields_by_name
    assert {n: value[n].number for n in ("tag", "scalar_value", "image", "tensor", "histogram",
                                         "loss_landscape")} == {
        "tag": 1, "scalar_value": 3, "image": 4, "tensor": 8, "histogram": 9, "loss_landscape": 10}
    lineage = lineage_pb2.LineageEvent.DESCRIPTOR.fields_by_name
    assert {n: lineage[n].number for n in ("train_lineage", "evaluation_lineage", "dataset_graph",
                                           "user_defined_info")} == {
        "train_lineage": 6, "evaluation_lineage": 7, "dataset_graph": 9, "user_defined_info": 10}
    assert anf_ir_pb2.DT_FLOAT32 == 11 and anf_ir_pb2.DT_INT32 == 4 and anf_ir_pb2.DT_TENSOR == 14
