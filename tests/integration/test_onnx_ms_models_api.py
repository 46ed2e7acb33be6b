"""models/* over ONNX and MindSpore Lite `.ms` models: the real files of ../shared/fixtures/model_formats (MindSpore
2.10's ONNX export, the Lite 2.0 converter's .ms) checked against every value of their EXPECTED.json; an ONNX model
and a .ms model written here (our onnx_pb2, the flatbuffers Builder) cover the same ground without ../shared:
subgraphs, attributes, every way ONNX stores values, external data (and one refused outside the model's folder);
truncated, garbage, foreign and encrypted files are a clear 400, never a 500.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import flatbuffers
import numpy as np
import pytest
from flask.testing import FlaskClient

from mindinsight_clone.ingest.mindspore_lite_model import PRIMITIVE_TYPES
from mindinsight_clone.proto import onnx_pb2
from tests.conftest import SHARED, require_shared
from tests.integration.test_debugger_api import make_client

API = "/v1/mindinsight/models"
FORMATS = SHARED / "fixtures" / "model_formats"
ONNX_TYPES = {"FLOAT": "float32"}
T = onnx_pb2.TensorProto


def get(client: FlaskClient, path: str, **query: Any) -> dict[str, Any]:
    response = client.get(f"{API}{path}", query_string=query)
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def refused(client: FlaskClient, model_id: str, path: str = "/graph") -> str:
    response = client.get(f"{API}{path}", query_string={"model_id": model_id})
    assert response.status_code == 400, (model_id, response.status_code, response.get_data(as_text=True)[:300])
    message: str = response.get_json()["error_msg"]
    return message


def stats_match(row: dict[str, Any], facts: dict[str, Any]) -> None:
    assert row["count"] == facts.get("numel", row["count"])
    for key in ("min", "max", "mean"):
        assert row[key] == pytest.approx(facts[key], rel=1e-6, abs=1e-9), (row["name"], key)
    assert row["nan_count"] == 0 and row["error"] is None


# ---------------------------------------------------------------- the real files
@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[FlaskClient, dict[str, Any]]:
    require_shared(FORMATS)
    expected = json.loads((FORMATS / "EXPECTED.json").read_text())["files"]
    return make_client(FORMATS, tmp_path_factory.mktemp("onnx-ws")), expected


def test_real_models_are_listed(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    listed = {m["model_id"]: m for m in get(client, "/list")["models"]}
    assert listed["./lenet.onnx"]["kind"] == "onnx" and listed["./lenet.onnx"]["size"] == expected["lenet.onnx"]["bytes"]
    assert listed["./lenet.ms"]["kind"] == "ms" and listed["./lenet.ms"]["size"] == expected["lenet.ms"]["bytes"]


def test_real_onnx_matches_expected(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    facts = expected["lenet.onnx"]
    graph = get(client, "/graph", model_id="./lenet.onnx")
    assert graph["kind"] == "onnx" and graph["graph_name"] == facts["graph_name"]
    f = graph["facts"]
    assert f["ir_version"] == facts["ir_version"] and f["opset_import"] == facts["opset_import"]
    assert (f["producer_name"], f["producer_version"]) == (facts["producer_name"], facts["producer_version"])
    assert f["initializer_count"] == facts["initializer_count"] and f["value_info_count"] == facts["value_info_count"]
    assert f["not_read"] == [] and f["external_data_files"] == []
    assert graph["node_count"] == facts["node_count"] == len(graph["nodes"])
    assert [n["op_type"] for n in graph["nodes"]] == facts["op_types_in_order"]
    counts: dict[str, int] = {}
    for node in graph["nodes"]:
        counts[node["op_type"]] = counts.get(node["op_type"], 0) + 1
    assert counts == facts["op_type_counts"]
    for node, want in zip(graph["nodes"], facts["nodes"], strict=True):
        assert node["name"] == want["name"] and node["op_type"] == want["op_type"]
        assert graph["tensor_edges"][node["name"]] == {"inputs": want["inputs"], "outputs": want["outputs"]}
    # graph-view inputs: the producing node (2Relu <- 1Conv), or the parameter / graph input itself
    by_name = {n["name"]: n for n in graph["nodes"]}
    assert by_name["2Relu"]["inputs"] == ["1Conv"] and by_name["1Conv"]["inputs"] == ["x", "conv1.weight"]
    assert by_name["1Conv"]["attributes"]["kernel_shape"] == "[5, 5]"
    assert by_name["1Conv"]["attributes"]["auto_pad"] == "VALID"
    for got, want in ((graph["inputs"], facts["inputs"]), (graph["outputs"], facts["outputs"])):
        assert [(g["name"], g["dtype"], g["shape"]) for g in got] == [
            (w["name"], ONNX_TYPES[w["elem_type"]], w["shape"]) for w in want]
    params = get(client, "/parameters", model_id="./lenet.onnx")
    assert params["total"] == facts["initializer_count"]
    assert [r["name"] for r in params["parameters"]] == list(facts["initializers"])
    for row in params["parameters"]:
        want = facts["initializers"][row["name"]]
        assert row["shape"] == want["shape"] and row["dtype"] == ONNX_TYPES[want["data_type"]]
        stats_match(row, want)


def test_real_ms_matches_expected(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    facts = expected["lenet.ms"]
    graph = get(client, "/graph", model_id="./lenet.ms")
    f = graph["facts"]
    assert graph["kind"] == "ms" and f["name"] == facts["graph_name"] and graph["graph_name"] == facts["subgraphs"][0]["name"]
    assert f["file_identifier"] == facts["file_identifier"] and f["root_table_offset"] == facts["root_table_offset"]
    assert f["version"] == facts["version"] and f["fmk_type"] == facts["fmkType"] and f["fmk_name"] == "ONNX"
    assert graph["node_count"] == facts["node_count"] and f["tensor_count"] == facts["tensor_count"]
    assert f["const_tensor_count"] == facts["const_tensor_count"]
    assert f["primitive_counts"] == facts["primitive_counts"] and f["subgraphs"] == facts["subgraphs"]
    tensors = {t["name"]: t for t in graph["tensors"]}
    assert [i["name"] for i in graph["inputs"]] == [i["name"] for i in facts["inputs"]]
    for got, want in ((graph["inputs"], facts["inputs"]), (graph["outputs"], facts["outputs"])):
        assert [(g["name"], g["shape"]) for g in got] == [(w["name"], w["dims"]) for w in want]
    assert tensors["x"]["data_type_name"] == facts["inputs"][0]["dataType_name"]
    for node, want in zip(graph["nodes"], facts["nodes"], strict=True):
        assert (node["name"], node["op_type"]) == (want["name"], want["primitive"])
        assert node["attributes"]["primitive_type"] == str(want["primitive_code"])
        assert graph["tensor_edges"][node["name"]] == {"inputs": want["inputs"], "outputs": want["outputs"]}
    assert [t["name"] for t in graph["tensors"]] == [t["name"] for t in facts["tensors"]]
    # each operator's own table: the converter fused the ONNX graph's 4 ReLUs into the convs and dense layers
    attrs = {n["name"]: n["attributes"] for n in graph["nodes"]}
    assert (attrs["1Conv"]["kernel_size"], attrs["1Conv"]["out_channel"], attrs["1Conv"]["format"]) == ("[5, 5]", "6",
                                                                                                         "NHWC")
    fused = [n for n, a in attrs.items() if a.get("activation_type") == "RELU"]
    assert len(fused) == expected["lenet.onnx"]["op_type_counts"]["Relu"] and attrs["12Gemm"]["activation_type"] == \
        "NO_ACTIVATION"
    assert attrs["8Gemm"]["transpose_b"] == "true" and attrs["7Flatten"]["axis"] == "1"
    assert f["not_read"] == ["quantization parameters"]
    for want in facts["tensors"]:
        got = tensors[want["name"]]
        assert (got["node_type"], got["data_type"], got["data_type_name"], got["dims"], got["format"],
                got["data_bytes"]) == (want["nodeType"], want["dataType"], want["dataType_name"], want["dims"],
                                       want["format"], want["data_bytes"])
    params = get(client, "/parameters", model_id="./lenet.ms")
    consts = [t for t in facts["tensors"] if t["data_bytes"]]
    assert [r["name"] for r in params["parameters"]] == [t["name"] for t in consts]
    for row, want in zip(params["parameters"], consts, strict=True):
        assert row["shape"] == want["dims"]
        stats_match(row, want)


def test_real_models_compare_by_name(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, _ = real
    onnx_vs_ckpt = get(client, "/parameters/compare", model_id="./lenet.onnx", other_model_id="./lenet.ckpt")
    assert onnx_vs_ckpt["only_in_model"] == onnx_vs_ckpt["only_in_other"] == []
    assert all(r["equal"] for r in onnx_vs_ckpt["parameters"]) and len(onnx_vs_ckpt["parameters"]) == 8
    # the converter moved conv weights to NHWC ([out, kh, kw, in]): same name, other shape; dense ones equal
    ms_vs_onnx = {r["name"]: r for r in get(client, "/parameters/compare", model_id="./lenet.ms",
                                               other_model_id="./lenet.onnx")["parameters"]}
    assert ms_vs_onnx["conv1.weight"]["error"] == "the shapes differ"
    assert ms_vs_onnx["conv1.weight"]["shape"] == [6, 5, 5, 1] and ms_vs_onnx["conv1.weight"]["other_shape"] == [6, 1, 5, 5]
    assert ms_vs_onnx["fc1.weight"]["equal"] and ms_vs_onnx["fc3.bias"]["equal"]


def test_real_graph_views_and_bad_copies(real: tuple[FlaskClient, dict[str, Any]], tmp_path: Path) -> None:
    client, _ = real
    for model_id, count in (("./lenet.onnx", 12), ("./lenet.ms", 9)):
        nodes = get(client, "/graph/nodes", model_id=model_id)["nodes"]
        assert len([n for n in nodes if n["type"] not in ("Parameter", "Const")]) >= count
    # truncated copies of the real files: a clear 400 saying what is wrong
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / "lenet.onnx").write_bytes((FORMATS / "lenet.onnx").read_bytes()[:5000])
    (tmp_path / "cut" / "lenet.ms").write_bytes((FORMATS / "lenet.ms").read_bytes()[:5000])
    cut = make_client(tmp_path / "cut", tmp_path / "ws")
    assert "not an ONNX model" in refused(cut, "./lenet.onnx")
    assert "truncated" in refused(cut, "./lenet.ms")


# ---------------------------------------------------------------- files written here
def _tensor(name: str, data_type: int, dims: list[int], **fields: Any) -> Any:
    tensor = T(name=name, data_type=data_type, dims=dims)
    for key, value in fields.items():
        if key == "raw_data":
            tensor.raw_data = value
        elif key == "external":
            tensor.data_location = T.EXTERNAL
            for k, v in value.items():
                tensor.external_data.add(key=k, value=v)
        else:
            getattr(tensor, key).extend(value)
    return tensor


def _value(name: str, elem_type: int, dims: list[int | str]) -> Any:
    info = onnx_pb2.ValueInfoProto(name=name)
    info.type.tensor_type.elem_type = elem_type
    for d in dims:
        dim = info.type.tensor_type.shape.dim.add()
        if isinstance(d, str):
            dim.dim_param = d
        else:
            dim.dim_value = d
    return info


def make_onnx() -> bytes:
    """Gemm -> Relu -> If(c) { then: Identity, else: Neg }: attributes of every kind, initializers stored in every
    way ONNX allows (raw_data, float_data, int64_data, float16 bits in int32_data, external, string)."""
    A = onnx_pb2.AttributeProto
    model = onnx_pb2.ModelProto(ir_version=8, producer_name="test", producer_version="1")
    model.opset_import.add(domain="", version=17)
    g = model.graph
    g.name = "made"
    g.input.extend([_value("x", T.FLOAT, ["N", 3]), _value("c", T.BOOL, [])])
    g.output.extend([_value("out", T.FLOAT, ["N", 2])])
    g.initializer.extend([
        _tensor("w", T.FLOAT, [3, 2], raw_data=np.arange(6, dtype="<f4").tobytes()),
        _tensor("b", T.FLOAT, [2], float_data=[0.5, -0.5]),
        _tensor("idx", T.INT64, [2], int64_data=[7, -3]),
        _tensor("h", T.FLOAT16, [2], int32_data=np.array([1.5, -2], "<f2").view("<u2").tolist()),
        _tensor("ext", T.FLOAT, [6], external={"location": "weights.bin", "offset": "16", "length": "24"}),
        _tensor("escape", T.FLOAT, [2], external={"location": "../outside.bin", "offset": "0", "length": "8"}),
        _tensor("names", T.STRING, [1], string_data=[b"a"]),
    ])
    gemm = g.node.add(name="gemm", op_type="Gemm", input=["x", "w", "b"], output=["g"])
    gemm.attribute.extend([A(name="alpha", type=A.FLOAT, f=0.5), A(name="transB", type=A.INT, i=0),
                           A(name="note", type=A.STRING, s=b"hi"), A(name="perm", type=A.INTS, ints=list(range(20))),
                           A(name="t", type=A.TENSOR, t=_tensor("t", T.INT64, [2], int64_data=[1, 2]))])
    g.node.add(name="/block/act/Relu", op_type="Relu", input=["g"], output=["r"])  # PyTorch-style: scopes
    branch = g.node.add(name="if", op_type="If", input=["c"], output=["out"])
    then_graph = onnx_pb2.GraphProto(name="then")
    then_graph.node.add(name="id", op_type="Identity", input=["r"], output=["t_out"])
    then_graph.output.extend([_value("t_out", T.FLOAT, ["N", 2])])
    else_graph = onnx_pb2.GraphProto(name="else")
    else_graph.node.add(op_type="Neg", input=["r"], output=["e_out"])  # no name: Neg_0
    branch.attribute.extend([A(name="then_branch", type=A.GRAPH, g=then_graph),
                             A(name="else_branch", type=A.GRAPH, g=else_graph)])
    return model.SerializeToString()


def make_ms() -> bytes:
    """A MetaGraph as the converter writes it (model.fbs, identifier MSL2): x -> MatMulFusion(x, w) -> y."""
    b = flatbuffers.Builder(0)

    def vector(values: list[int], kind: str) -> int:
        return b.CreateNumpyVector(np.array(values, dtype=kind))

    def tensor(name: str, node_type: int, dims: list[int], data: bytes | None, data_type: int = 43) -> int:
        name_off, dims_off = b.CreateString(name), vector(dims, "<i4")
        data_off = b.CreateByteVector(data) if data is not None else 0
        b.StartObject(11)
        b.PrependInt32Slot(0, node_type, 0)
        b.PrependInt32Slot(1, data_type, 0)
        b.PrependUOffsetTRelativeSlot(2, dims_off, 0)
        b.PrependInt32Slot(3, 1, 0)  # NHWC
        if data_off:
            b.PrependUOffsetTRelativeSlot(6, data_off, 0)
        b.PrependUOffsetTRelativeSlot(9, name_off, 0)
        return int(b.EndObject())

    def tables(offsets: list[int]) -> int:
        b.StartVector(4, len(offsets), 4)
        for off in reversed(offsets):
            b.PrependUOffsetTRelative(off)
        return int(b.EndVector())

    tensors = [tensor("x", 2, [1, 2], None), tensor("w", 0, [2, 2], np.array([1, -2, 3, 4.5], "<f4").tobytes()),
               tensor("y", 2, [1, 2], None), tensor("k", 0, [3], np.array([1, 2, 3], "<i8").tobytes(), 35)]
    b.StartObject(3)  # MatMulFusion { transpose_a: bool; transpose_b: bool; activation_type: ActivationType }
    b.PrependBoolSlot(1, True, False)
    b.PrependInt8Slot(2, 3, 0)  # RELU6
    matmul_attrs = b.EndObject()
    b.StartObject(2)  # Primitive { value: PrimitiveType }
    b.PrependUint8Slot(0, PRIMITIVE_TYPES.index("MatMulFusion") + 1, 0)
    b.PrependUOffsetTRelativeSlot(1, matmul_attrs, 0)
    primitive = b.EndObject()
    node_name, node_in, node_out = b.CreateString("matmul"), vector([0, 1], "<u4"), vector([2], "<u4")
    b.StartObject(6)
    b.PrependUOffsetTRelativeSlot(0, node_name, 0)
    b.PrependUOffsetTRelativeSlot(2, primitive, 0)
    b.PrependUOffsetTRelativeSlot(3, node_in, 0)
    b.PrependUOffsetTRelativeSlot(4, node_out, 0)
    node = b.EndObject()
    version, graph_in, graph_out = b.CreateString("MindSpore Lite test"), vector([0], "<u4"), vector([2], "<u4")
    nodes, all_tensors = tables([node]), tables(tensors)
    b.StartObject(9)
    b.PrependUOffsetTRelativeSlot(1, version, 0)
    b.PrependInt32Slot(2, 3, 0)  # fmkType MINDIR
    b.PrependUOffsetTRelativeSlot(3, graph_in, 0)
    b.PrependUOffsetTRelativeSlot(4, graph_out, 0)
    b.PrependUOffsetTRelativeSlot(6, nodes, 0)
    b.PrependUOffsetTRelativeSlot(7, all_tensors, 0)
    b.Finish(b.EndObject(), file_identifier=b"MSL2")
    return bytes(b.Output())


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    root = tmp_path_factory.mktemp("made-models")
    base = root / "base"
    (base / "onnx").mkdir(parents=True)
    (base / "onnx" / "made.onnx").write_bytes(make_onnx())
    ext = np.array([0, 0, 0, 0, 1, 2, 3, 4, 5, -6], "<f4")  # offset 16 bytes = 4 floats
    (base / "onnx" / "weights.bin").write_bytes(ext.tobytes())
    (base / "outside.bin").write_bytes(np.ones(2, "<f4").tobytes())
    bad = base / "bad"
    bad.mkdir()
    data = make_onnx()
    (bad / "cut.onnx").write_bytes(data[: len(data) // 2])
    (bad / "garbage.onnx").write_bytes(b"\xff" * 64)
    (bad / "empty.onnx").write_bytes(b"")
    ms = make_ms()
    (base / "made.ms").write_bytes(ms)
    (bad / "cut.ms").write_bytes(ms[: len(ms) // 2])
    (bad / "wild.ms").write_bytes(struct.pack("<I", 1 << 20) + b"MSL2" + b"\0" * 64)
    (bad / "old.ms").write_bytes(ms[:4] + b"MSL1" + ms[8:])
    (bad / "other.ms").write_bytes(ms[:4] + b"TFL3" + ms[8:])
    (bad / "secret.ms").write_bytes(struct.pack("<I", 0x7F3A5ED8) + b"\x01" * 60)
    (bad / "tiny.ms").write_bytes(b"MS")
    return make_client(base, root / "ws")


def test_made_onnx_graph_with_subgraphs_and_attributes(made: FlaskClient) -> None:
    graph = get(made, "/graph", model_id="./onnx/made.onnx")
    names = [n["name"] for n in graph["nodes"]]
    assert names == ["gemm", "/block/act/Relu", "if", "if.then_branch/id", "if.else_branch/Neg_0"]
    by_name = {n["name"]: n for n in graph["nodes"]}
    assert by_name["/block/act/Relu"]["inputs"] == ["gemm"] and by_name["/block/act/Relu"]["full_name"] == "block/act/Relu"
    assert by_name["if.then_branch/id"]["inputs"] == ["/block/act/Relu"]
    assert by_name["if.else_branch/Neg_0"]["full_name"] == "if.else_branch/Neg_0"
    attrs = by_name["gemm"]["attributes"]
    assert (attrs["alpha"], attrs["transB"], attrs["note"]) == ("0.5", "0", "hi")
    assert attrs["perm"].startswith("[0, 1, 2") and attrs["perm"].endswith("(20 values)]")
    assert attrs["t"] == "tensor int64 [2] = [1, 2]"
    assert by_name["if"]["attributes"]["then_branch"] == "graph then (1 nodes)"
    assert graph["tensor_edges"]["gemm"] == {"inputs": ["x", "w", "b"], "outputs": ["g"]}
    assert [(i["name"], i["shape"], i["dtype"]) for i in graph["inputs"]] == [("x", [-1, 3], "float32"),
                                                                            ("c", [], "bool")]
    assert graph["facts"]["opset_import"] == {"ai.onnx": 17}
    assert graph["facts"]["external_data_files"] == ["../outside.bin", "weights.bin"]
    # the graph views draw the subgraphs inside their own scope
    top = {n["name"] for n in get(made, "/graph/nodes", model_id="./onnx/made.onnx")["nodes"]}
    assert {"gemm", "if", "block", "if.then_branch", "if.else_branch"} <= top
    inner = get(made, "/graph/nodes", model_id="./onnx/made.onnx", name="if.then_branch")["nodes"]
    assert [n["name"] for n in inner] == ["if.then_branch/id"]
    assert get(made, "/graph/nodes", model_id="./onnx/made.onnx", name="block/act")["nodes"][0]["name"] == "block/act/Relu"


def test_made_onnx_initializers_every_storage(made: FlaskClient) -> None:
    rows = {r["name"]: r for r in get(made, "/parameters", model_id="./onnx/made.onnx")["parameters"]}
    assert list(rows) == ["w", "b", "idx", "h", "ext", "escape", "names"]
    expect = {"w": np.arange(6), "b": [0.5, -0.5], "idx": [7, -3], "h": [1.5, -2], "ext": [1, 2, 3, 4, 5, -6]}
    for name, values in expect.items():
        row = rows[name]
        assert row["error"] is None, row
        assert (row["min"], row["max"]) == (min(values), max(values))
        assert row["mean"] == pytest.approx(float(np.mean(values)))
    assert rows["h"]["dtype"] == "float16" and rows["idx"]["dtype"] == "int64"
    assert "refused" in rows["escape"]["error"] and rows["escape"]["min"] is None
    assert "string" in rows["names"]["error"] and "not read" in rows["names"]["error"]


def test_made_ms_graph_and_tensors(made: FlaskClient) -> None:
    graph = get(made, "/graph", model_id="./made.ms")
    assert [(n["name"], n["op_type"], n["inputs"]) for n in graph["nodes"]] == [("matmul", "MatMulFusion", ["x", "w"])]
    assert graph["nodes"][0]["output_shapes"] == [[1, 2]]
    assert {k: graph["nodes"][0]["attributes"][k] for k in ("transpose_a", "transpose_b", "activation_type")} == {
        "transpose_a": "false", "transpose_b": "true", "activation_type": "RELU6"}
    assert graph["facts"]["version"] == "MindSpore Lite test" and graph["facts"]["fmk_name"] == "MINDIR"
    assert [t["name"] for t in graph["tensors"]] == ["x", "w", "y", "k"]
    assert graph["tensors"][3]["data_type_name"] == "kNumberTypeInt64" and graph["tensors"][1]["format_name"] == "NHWC"
    rows = {r["name"]: r for r in get(made, "/parameters", model_id="./made.ms")["parameters"]}
    assert (rows["w"]["min"], rows["w"]["max"], rows["w"]["mean"]) == (-2, 4.5, 1.625)
    assert (rows["k"]["dtype"], rows["k"]["max"]) == ("int64", 3)


@pytest.mark.parametrize(("name", "says"), [
    ("cut.onnx", "not an ONNX model"), ("garbage.onnx", "ONNX"), ("empty.onnx", "holds no ONNX graph"),
    ("cut.ms", "truncated"), ("wild.ms", "outside the file"), ("old.ms", "MSL1"),
    ("other.ms", "not a MindSpore Lite model"), ("secret.ms", "encrypted"), ("tiny.ms", "too short"),
])
def test_bad_files_are_a_clear_400(made: FlaskClient, name: str, says: str) -> None:
    for path in ("/graph", "/parameters"):
        message = refused(made, f"./bad/{name}", path)
        assert says in message, message


def test_s3_answers_equal_local_ones(s3_server: Any, made: FlaskClient, tmp_path: Path) -> None:
    """The same files on S3: graphs, parameters (external data read by range from the bucket), the refusals."""
    from tests.remote_base import s3_app

    local_base = Path(made.application.extensions["mindinsight_clone"].settings.summary_base_dir)
    bucket = s3_server.bucket("onnx-ms")
    s3_server.upload_tree(local_base, bucket, "base")
    remote = s3_app(s3_server, f"s3://{bucket}/base", tmp_path / "ws-s3", max_depth=4).test_client()
    for model_id in ("./onnx/made.onnx", "./made.ms"):
        for path in ("/graph", "/parameters"):
            assert get(remote, path, model_id=model_id) == get(made, path, model_id=model_id)
    assert "MSL1" in refused(remote, "./bad/old.ms")


def test_onnx_external_data_never_leaves_the_folder(tmp_path: Path) -> None:
    """Locations through a symlink, absolute or with `..` are refused per initializer (nothing opened); crafted
    dims and a file shorter than the shape are an error row, never a 500 or a read past the file; a node named like
    an initializer gets a suffix (one namespace in the graph views)."""
    base = tmp_path / "base"
    (base / "m").mkdir(parents=True)
    secret = tmp_path / "secret.bin"
    secret.write_bytes(np.ones(4, "<f4").tobytes())
    (base / "m" / "link.bin").symlink_to(secret)
    (base / "m" / "short.bin").write_bytes(b"\0" * 8)
    model = onnx_pb2.ModelProto(ir_version=8)
    model.graph.name = "g"
    model.graph.initializer.extend([
        _tensor("linked", T.FLOAT, [4], external={"location": "link.bin"}),
        _tensor("absolute", T.FLOAT, [4], external={"location": str(secret)}),
        _tensor("up", T.FLOAT, [4], external={"location": "../../secret.bin"}),
        _tensor("negative", T.FLOAT, [-4], raw_data=b"\0" * 16),
        _tensor("huge", T.FLOAT, [1 << 40, 1 << 30], external={"location": "short.bin"}),
        _tensor("lying", T.FLOAT, [4], raw_data=b"\0" * 3),
    ])
    model.graph.node.add(name="linked", op_type="Identity", input=["linked"], output=["o"])  # a node named like a value
    (base / "m" / "hostile.onnx").write_bytes(model.SerializeToString())
    client = make_client(base, tmp_path / "ws")
    rows = {r["name"]: r for r in get(client, "/parameters", model_id="./m/hostile.onnx")["parameters"]}
    for name in ("linked", "absolute", "up"):
        assert "refused" in rows[name]["error"] and rows[name]["max"] is None, rows[name]
    assert "negative dimension" in rows["negative"]["error"]
    assert "short.bin ends before" in rows["huge"]["error"]
    assert "raw_data holds 3 bytes" in rows["lying"]["error"]
    node = get(client, "/graph", model_id="./m/hostile.onnx")["nodes"][0]
    assert (node["name"], node["inputs"]) == ("linked_2", ["linked"])
