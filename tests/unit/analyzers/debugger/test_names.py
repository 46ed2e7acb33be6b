"""The dump's name grammar (ingest/dump_layout.py) and the matching of file names to graph names (naming.py)."""

from __future__ import annotations

import pytest

from mindinsight_clone.analyzers.debugger.naming import EXACT, PAIRED, match_kernels, match_parameters
from mindinsight_clone.ingest.dump_layout import (
    TensorName,
    parse_execution_order,
    parse_statistic_csv,
    parse_tensor_name,
)


def test_parse_tensor_names_as_mindspore_writes_them() -> None:
    name = parse_tensor_name("Conv2D.Default_network-WithLossCell__backbone-LeNet5_conv1-Conv2d_Conv2D-op0.0.0."
                             "1795510166399049.output.0.DefaultFormat.Float32.npy")
    assert name == TensorName("Conv2D", "Default_network-WithLossCell__backbone-LeNet5_conv1-Conv2d_Conv2D-op0", 0, 0,
                              1795510166399049, "output", 0, "DefaultFormat", "Float32")
    # the documentation's lower-case dtype, and an op name with dots (split from both ends)
    dotted = parse_tensor_name("Add.Default_net.v2_Add-op3.5.7.12.input.1.NCHW.float16.npy")
    assert dotted == TensorName("Add", "Default_net.v2_Add-op3", 5, 7, 12, "input", 1, "NCHW", "float16")


@pytest.mark.parametrize("name", [
    "garbage.npy", "Conv2D.op.0.0.1.output.0.DefaultFormat.Float32.bin", "Conv2D.op.x.0.1.output.0.F.Float32.npy",
    "Conv2D.op.0.0.1.sideways.0.F.Float32.npy", "Conv2D.op.0.0.1.output.-1.F.Float32.npy",
    "..0.0.1.output.0.F.Float32.npy", "statistic.csv",
])
def test_names_that_are_not_tensor_files(name: str) -> None:
    assert parse_tensor_name(name) is None


def test_execution_order_and_statistic_csv() -> None:
    assert parse_execution_order("NodeExecutionOrder-FullNameWithScope\nDefault/a-op0\n\nDefault/b-op1\n") == [
        "Default/a-op0", "Default/b-op1"]
    text = ("Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,Min Value,"
            "Avg Value,Count,Negative Zero Count,Positive Zero Count,NaN Count,Negative Inf Count,Positive Inf Count,"
            "Zero Count\n"
            "Conv2D,Default/conv1-Conv2d/Conv2D-op0,3,1,17,output,0,96,float32,\"(2,3,4)\",1.5,-2,0.1,24,10,12,1,0,1,0\n"
            "broken,row\n")
    rows, bad = parse_statistic_csv(text)
    assert bad == 1 and len(rows) == 1
    row = rows[0]
    assert row.name.op_name == "Default_conv1-Conv2d_Conv2D-op0" and row.shape == [2, 3, 4]
    assert row.values == {"max": 1.5, "min": -2.0, "mean": 0.1, "count": 24.0, "neg_count": 10.0, "pos_count": 12.0,
                          "nan_count": 1.0, "neg_inf_count": 0.0, "pos_inf_count": 1.0, "zero_count": 0.0}


def test_renumbered_kernels_pair_by_scope_type_and_order() -> None:
    kernels = ["Default/net/relu-ReLU/ReLU-op0", "Default/net/relu-ReLU/ReLU-op1", "Default/net/conv-Conv2d/Conv2D-op0",
               "Gradients/net/relu-ReLU/ReluGrad-op1", "Default/net/relu-ReLU/ReLU-op2"]
    files = [("Default_net_relu-ReLU_ReLU-op4", 10), ("Default_net_relu-ReLU_ReLU-op5", 20),
             ("Default_net_conv-Conv2d_Conv2D-op0", 15), ("Gradients_net_relu-ReLU_ReluGrad-op0", 30),
             ("Default_net_relu-ReLU_ReLU-op2", 40), ("Default_net_relu-ReLU_ReLU-op4", 5)]
    got = match_kernels(files, kernels)
    assert got["Default_net_conv-Conv2d_Conv2D-op0"] == (kernels[2], 2, EXACT)
    assert got["Default_net_relu-ReLU_ReLU-op2"] == (kernels[4], 4, EXACT)
    # the two renumbered ReLUs pair with the two ReLU kernels left, in the order their files were written
    assert got["Default_net_relu-ReLU_ReLU-op4"] == (kernels[0], 0, PAIRED)
    assert got["Default_net_relu-ReLU_ReLU-op5"] == (kernels[1], 1, PAIRED)
    assert got["Gradients_net_relu-ReLU_ReluGrad-op0"] == (kernels[3], 3, PAIRED)
    assert match_kernels([("Default_other-op0", 1)], kernels) == {}


def test_parameter_names() -> None:
    got = match_parameters(["fc1.weight", "moments.fc1.weight", "inputs0", "fc1_weight"])
    assert got == {"fc1_weight": "fc1.weight", "moments_fc1_weight": "moments.fc1.weight", "inputs0": "inputs0"}
