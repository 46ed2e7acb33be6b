"""models/* over safetensors checkpoints: the real MindSpore 2.10 files of ../shared/fixtures/model_formats checked
against their EXPECTED.json, files written here (numpy values + a header written by the test: every dtype, bf16,
scalars, metadata), a sharded `model.safetensors.index.json` set, and hostile headers (a clear 400, never a 500).
"""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask.testing import FlaskClient

from tests.conftest import SHARED, require_shared
from tests.integration.test_debugger_api import make_client

API = "/v1/mindinsight/models"
FORMATS = SHARED / "fixtures" / "model_formats"
ST_FILES = ("lenet.safetensors", "lenet_train.safetensors", "distributed/rank_0/lenet-1_4.safetensors",
            "distributed/rank_1/lenet-1_4.safetensors")


def get(client: FlaskClient, path: str, **query: Any) -> dict[str, Any]:
    response = client.get(f"{API}{path}", query_string=query)
    assert response.status_code == 200, response.get_json()
    body: dict[str, Any] = response.get_json()
    return body


def refused(client: FlaskClient, model_id: str) -> str:
    response = client.get(f"{API}/parameters", query_string={"model_id": model_id})
    assert response.status_code == 400, (model_id, response.status_code, response.get_data(as_text=True)[:300])
    message: str = response.get_json()["error_msg"]
    return message


def write_safetensors(path: Path, tensors: dict[str, tuple[str, np.ndarray]], metadata: dict[str, str] | None = None,
                      header: dict[str, Any] | None = None) -> None:
    """A safetensors file as the format says: u64 LE header length, the JSON header (space-padded to 8), data.
    `tensors`: name -> (safetensors dtype, raw values already in that dtype's bytes)."""
    entries: dict[str, Any] = {"__metadata__": metadata} if metadata is not None else {}
    data, offset = b"", 0
    for name, (dtype, values) in tensors.items():
        raw = values.tobytes()
        entries[name] = {"dtype": dtype, "shape": list(values.shape), "data_offsets": [offset, offset + len(raw)]}
        data += raw
        offset += len(raw)
    text = json.dumps(header if header is not None else entries).encode()
    text += b" " * (-len(text) % 8)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)


# ---------------------------------------------------------------- the real MindSpore files
@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[FlaskClient, dict[str, Any]]:
    require_shared(FORMATS)
    expected = json.loads((FORMATS / "EXPECTED.json").read_text())["files"]
    return make_client(FORMATS, tmp_path_factory.mktemp("st-ws")), expected


def test_real_safetensors_are_listed(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    listed = {m["model_id"]: m for m in get(client, "/list")["models"]}
    for name in ST_FILES:
        model = listed["./" + name]
        assert model["kind"] == "safetensors"
        assert model["size"] == expected[name]["bytes"]
    assert listed["./lenet.ckpt"]["kind"] == "checkpoint"


@pytest.mark.parametrize("name", ST_FILES)
def test_real_safetensors_match_expected(real: tuple[FlaskClient, dict[str, Any]], name: str) -> None:
    client, expected = real
    facts = expected[name]
    answer = get(client, "/parameters", model_id="./" + name)
    assert answer["kind"] == "safetensors"
    assert answer["metadata"] == facts["metadata"]
    rows = answer["parameters"]
    assert [r["name"] for r in rows] == [k for k in facts["header_keys_in_file_order"] if k != "__metadata__"]
    assert sorted(r["name"] for r in rows) == sorted(facts["mindspore_load_checkpoint_keys"])
    for row in rows:
        entry, param = facts["entries"][row["name"]], facts["params"][row["name"]]
        assert row["shape"] == entry["shape"] == param["shape"]
        assert row["dtype"] == param["dtype"]
        assert row["count"] == param["numel"]
        assert row["min"] == pytest.approx(param["min"], rel=1e-6, abs=1e-9)
        assert row["max"] == pytest.approx(param["max"], rel=1e-6, abs=1e-9)
        assert row["mean"] == pytest.approx(param["mean"], rel=1e-6, abs=1e-9)
        assert row["nan_count"] == 0 and row["error"] is None


def test_real_safetensors_page_and_compare_with_ckpt(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    page = get(client, "/parameters", model_id="./lenet_train.safetensors", offset=3, limit=1)
    assert page["total"] == 21 and [r["name"] for r in page["parameters"]] == ["conv2.weight"]
    compared = get(client, "/parameters/compare", model_id="./lenet.safetensors", other_model_id="./lenet.ckpt")
    assert compared["only_in_model"] == compared["only_in_other"] == []
    assert {r["name"] for r in compared["parameters"]} == set(expected["lenet.ckpt"]["params"])
    assert all("error" not in r and r["equal"] for r in compared["parameters"])  # EXPECTED: identical values


def test_real_distributed_shards_hold_the_union(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, _ = real
    comparison = json.loads((FORMATS / "EXPECTED.json").read_text())["comparisons"]["distributed_shards"]
    names: list[str] = []
    for shard, expected_names in comparison["per_shard"].items():
        got = [r["name"] for r in get(client, "/parameters", model_id="./" + shard)["parameters"]]
        assert sorted(got) == expected_names
        names += got
    assert sorted(names) == comparison["union_of_names"]


def test_real_distributed_job_is_one_model_with_owner_ranks(real: tuple[FlaskClient, dict[str, Any]]) -> None:
    client, expected = real
    set_id = "./distributed/rank_*/lenet-1_4.safetensors"
    listed = {m["model_id"]: m for m in get(client, "/list")["models"]}
    shard_files = [f"distributed/rank_{r}/lenet-1_4.safetensors" for r in (0, 1)]
    assert listed[set_id]["kind"] == "safetensors-ranks"
    assert listed[set_id]["size"] == sum(expected[f]["bytes"] for f in shard_files)
    answer = get(client, "/parameters", model_id=set_id)
    assert answer["metadata"] == {"format": "ms", "remove_redundancy": "True", "ranks": [0, 1]}
    comparison = json.loads((FORMATS / "EXPECTED.json").read_text())["comparisons"]["distributed_shards"]
    assert sorted(r["name"] for r in answer["parameters"]) == comparison["union_of_names"]
    for row in answer["parameters"]:
        owner = [r for r, f in enumerate(shard_files) if row["name"] in expected[f]["params"]]
        assert row["ranks"] == owner and len(owner) == 1
        param = expected[shard_files[owner[0]]]["params"][row["name"]]
        assert row["shape"] == param["shape"] and row["count"] == param["numel"]
        assert row["mean"] == pytest.approx(param["mean"], rel=1e-6, abs=1e-9)


# ---------------------------------------------------------------- files written here
@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[FlaskClient, dict[str, np.ndarray]]:
    base = tmp_path_factory.mktemp("st-base")
    rng = np.random.default_rng(7)
    weight = rng.standard_normal((4, 3, 5)).astype(np.float32)
    weight[0, 0, 0], weight[1, 1, 1], weight[2, 2, 2] = np.nan, np.inf, -np.inf
    half = rng.standard_normal(10).astype(np.float16)
    bf16_source = np.array([1.5, -2.25, 3.0, 0.0], np.float32)
    bf16_bits = (bf16_source.view(np.uint32) >> 16).astype("<u2")
    values: dict[str, np.ndarray] = {"weight": weight, "half": half, "bf": bf16_source, "step": np.array(42, np.int64),
              "mask": np.array([True, False, True])}
    write_safetensors(base / "made.safetensors", {
        "step": ("I64", values["step"]), "weight": ("F32", weight), "half": ("F16", half), "bf": ("BF16", bf16_bits),
        "mask": ("BOOL", values["mask"])}, metadata={"format": "ms", "note": "test"})
    # a sharded Hugging Face-style set
    shard_names = ["model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"]
    write_safetensors(base / "hf" / shard_names[0], {"a.weight": ("F32", weight[0])})
    write_safetensors(base / "hf" / shard_names[1], {"b.weight": ("F16", half), "c.bias": ("I64", values["step"])})
    (base / "hf" / "model.safetensors.index.json").write_text(json.dumps({
        "metadata": {"total_size": weight[0].nbytes + half.nbytes + 8},
        "weight_map": {"a.weight": shard_names[0], "b.weight": shard_names[1], "c.bias": shard_names[1]}}))
    values["a.weight"], values["b.weight"], values["c.bias"] = weight[0], half, values["step"]
    # a data-parallel job saved without remove_redundancy: both ranks hold `shared`, rank 1 also `own`
    for rank in (0, 1):
        held = {"shared": ("F32", weight[3])} | ({"own": ("F16", half)} if rank else {})
        write_safetensors(base / "job" / f"rank_{rank}" / "net-1_2.safetensors", held, metadata={"format": "ms"})
    values["shared"], values["own"] = weight[3], half
    _write_hostile(base / "bad")
    return make_client(base, tmp_path_factory.mktemp("st-made-ws")), values


def _expected_stats(values: np.ndarray) -> dict[str, Any]:
    flat = values.astype(np.float64).reshape(-1)
    finite = flat[np.isfinite(flat)]
    return {"count": flat.size, "nan_count": int(np.isnan(flat).sum()), "pos_inf_count": int(np.isposinf(flat).sum()),
            "neg_inf_count": int(np.isneginf(flat).sum()), "min": float(finite.min()), "max": float(finite.max()),
            "mean": float(finite.mean()), "std": float(finite.std())}


def test_made_file_lists_every_dtype_with_statistics(made: tuple[FlaskClient, dict[str, np.ndarray]]) -> None:
    client, values = made
    answer = get(client, "/parameters", model_id="./made.safetensors")
    assert answer["metadata"] == {"format": "ms", "note": "test"}
    rows = {r["name"]: r for r in answer["parameters"]}
    assert list(rows) == ["step", "weight", "half", "bf", "mask"]
    assert [rows[n]["dtype"] for n in rows] == ["int64", "float32", "float16", "bfloat16", "bool"]
    assert rows["step"]["shape"] == [] and rows["weight"]["shape"] == [4, 3, 5]
    for name in ("step", "weight", "half", "bf", "mask"):
        for key, want in _expected_stats(values[name]).items():
            assert rows[name][key] == pytest.approx(want, rel=1e-5, abs=1e-6), (name, key)
    assert rows["bf"]["min"] == -2.25 and rows["bf"]["max"] == 3.0  # bf16 bits widened exactly


def test_index_set_is_one_model(made: tuple[FlaskClient, dict[str, np.ndarray]]) -> None:
    client, values = made
    listed = {m["model_id"]: m["kind"] for m in get(client, "/list")["models"]}
    assert listed["./hf/model.safetensors.index.json"] == "safetensors-index"
    assert listed["./hf/model-00001-of-00002.safetensors"] == "safetensors"
    answer = get(client, "/parameters", model_id="./hf/model.safetensors.index.json")
    assert answer["kind"] == "safetensors-index" and answer["metadata"]["shards"] == 2
    rows = {r["name"]: r for r in answer["parameters"]}
    assert list(rows) == ["a.weight", "b.weight", "c.bias"]
    for name, row in rows.items():
        assert row["shape"] == list(values[name].shape)
        assert row["mean"] == pytest.approx(_expected_stats(values[name])["mean"], rel=1e-5)


def test_rank_set_names_every_owner(made: tuple[FlaskClient, dict[str, np.ndarray]]) -> None:
    client, values = made
    answer = get(client, "/parameters", model_id="./job/rank_*/net-1_2.safetensors")
    assert answer["kind"] == "safetensors-ranks" and answer["metadata"]["ranks"] == [0, 1]
    rows = {r["name"]: r for r in answer["parameters"]}
    assert rows["shared"]["ranks"] == [0, 1] and rows["own"]["ranks"] == [1]
    for name in ("shared", "own"):
        assert rows[name]["max"] == pytest.approx(_expected_stats(values[name])["max"], rel=1e-5)
    compared = get(client, "/parameters/compare", model_id="./job/rank_*/net-1_2.safetensors",
                   other_model_id="./job/rank_1/net-1_2.safetensors")
    assert compared["only_in_model"] == [] and all(r["equal"] for r in compared["parameters"])


# ---------------------------------------------------------------- hostile input
HOSTILE: dict[str, str] = {}


def _raw(path: Path, header: bytes, data: bytes = b"", length: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(struct.pack("<Q", len(header) if length is None else length) + header + data)


def _write_hostile(bad: Path) -> None:
    four = np.arange(4, dtype=np.float32)
    cases = {
        "length_past_end": lambda p: _raw(p, b"{}", length=1000),
        "length_over_cap": lambda p: _raw(p, b"{}", length=1 << 40),
        "short": lambda p: p.write_bytes(b"\x01\x02"),
        "not_json": lambda p: _raw(p, b"{not json"),
        "not_object": lambda p: _raw(p, b"[1, 2]"),
        "unknown_dtype": lambda p: write_safetensors(p, {}, header={
            "x": {"dtype": "STR", "shape": [1], "data_offsets": [0, 1]}}),
        "past_file": lambda p: _raw(p, json.dumps({"x": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})
                                    .encode(), four.tobytes()[:8]),
        "size_mismatch": lambda p: _raw(p, json.dumps({"x": {"dtype": "F32", "shape": [3],
                                                              "data_offsets": [0, 16]}}).encode(), four.tobytes()),
        "overlap": lambda p: _raw(p, json.dumps({"x": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                                                 "y": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})
                                  .encode(), four.tobytes()),
        "negative_shape": lambda p: _raw(p, json.dumps({"x": {"dtype": "F32", "shape": [-1],
                                                               "data_offsets": [0, 0]}}).encode()),
    }
    for name, write in cases.items():
        write(bad / f"{name}.safetensors")
        HOSTILE[name] = f"./bad/{name}.safetensors"
    # an index naming a shard outside its folder
    outside = bad / "escape"
    outside.mkdir()
    (outside / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"x": "../../made.safetensors"}}))
    HOSTILE["index_escape"] = "./bad/escape/model.safetensors.index.json"
    (bad / "broken.safetensors.index.json").write_text("{")
    HOSTILE["index_not_json"] = "./bad/broken.safetensors.index.json"


@pytest.mark.parametrize(("case", "says"), [
    ("length_past_end", "runs past the end of the file"), ("length_over_cap", "over the"),
    ("short", "8-byte header length"), ("not_json", "not JSON"), ("not_object", "not a JSON object"),
    ("unknown_dtype", "unknown dtype 'STR'"), ("past_file", "run past the data section"),
    ("size_mismatch", "16 bytes for shape [3] of F32 (12 expected)"), ("overlap", "overlap"),
    ("negative_shape", "non-negative"), ("index_escape", "not a file name in the index's folder"),
    ("index_not_json", "not JSON")])
def test_hostile_headers_are_a_clear_400(made: tuple[FlaskClient, dict[str, np.ndarray]], case: str,
                                         says: str) -> None:
    client, _ = made
    message = refused(client, HOSTILE[case])
    assert says in message, message


def test_symlinked_shard_is_refused(made: tuple[FlaskClient, dict[str, np.ndarray]], tmp_path: Path) -> None:
    client, _ = made
    base = Path(client.application.extensions["mindinsight_clone"].settings.summary_base_dir)
    outside = tmp_path / "secret.safetensors"
    write_safetensors(outside, {"x": ("F32", np.zeros(2, np.float32))})
    link_dir = base / "bad" / "linked"
    link_dir.mkdir(exist_ok=True)
    (link_dir / "s.safetensors").symlink_to(outside)
    (link_dir / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"x": "s.safetensors"}}))
    client.application.extensions["mindinsight_clone"].data_manager.reload()
    message = refused(client, "./bad/linked/model.safetensors.index.json")
    assert "'s.safetensors' is refused" in message, message
    shutil.rmtree(link_dir)
    client.application.extensions["mindinsight_clone"].data_manager.reload()


# ---------------------------------------------------------------- reads by range; s3://
def test_one_tensor_reads_only_the_header_and_its_range(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mindinsight_clone.ingest import safetensors_file, storage

    big = np.ones((256, 1024), np.float32)
    path = tmp_path / "m.safetensors"
    write_safetensors(path, {"a": ("F32", big), "b": ("F32", big * 2), "c": ("F32", big * 3)})
    reads: list[tuple[int, int]] = []
    real_read = storage.read_range

    def counting(location: Any, offset: int, length: int) -> bytes:
        reads.append((offset, length))
        return real_read(location, offset, length)

    monkeypatch.setattr(storage, "read_range", counting)
    header = safetensors_file.read_header(path, path.stat().st_size)
    assert sum(length for _, length in reads) < 1024  # the listing read the header only
    reads.clear()
    b = header.tensors[1]
    values = np.concatenate(list(safetensors_file.value_chunks(b, chunk_bytes=256 * 1024)))
    assert (values == 2).all() and values.size == big.size
    assert reads[0][0] == b.offset and sum(n for _, n in reads) == b.length == big.nbytes  # b's bytes, nothing else


def test_s3_answers_equal_local_ones(s3_server: Any, made: tuple[FlaskClient, dict[str, np.ndarray]],
                                     tmp_path: Path) -> None:
    from tests.remote_base import s3_app

    client, _ = made
    local_base = Path(client.application.extensions["mindinsight_clone"].settings.summary_base_dir)
    bucket = s3_server.bucket("safetensors")
    s3_server.upload_tree(local_base, bucket, "base")
    remote = s3_app(s3_server, f"s3://{bucket}/base", tmp_path / "ws-s3", max_depth=4).test_client()
    for model_id in ("./made.safetensors", "./hf/model.safetensors.index.json", "./job/rank_*/net-1_2.safetensors"):
        left = get(client, "/parameters", model_id=model_id)
        assert get(remote, "/parameters", model_id=model_id) == left
    assert "overlap" in refused(remote, HOSTILE["overlap"])
