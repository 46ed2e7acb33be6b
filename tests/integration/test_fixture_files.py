"""Ingest over the real MindSpore 2.10 fixtures (../shared/fixtures/mindspore), checked against MANIFEST.json.

This tests what ingest gives (every value, in file order), not sampling: that is the store's job.
The checks read the fixtures through the storage seam from the `manifest_base` location: the local dir
here; tests/integration/test_remote_manifest.py runs the same test functions over the same files
uploaded to a loopback S3 server by overriding that fixture.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from google.protobuf import json_format, unknown_fields
from google.protobuf.internal import api_implementation
from google.protobuf.message import Message

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.event_parser import parse_lineage_records, parse_summary_records
from mindinsight_clone.ingest.record_reader import read_all
from mindinsight_clone.ingest.summary_watcher import scan_run, scan_runs, summary_sort_key
from mindinsight_clone.ingest.values import SummaryValue
from mindinsight_clone.proto import anf_ir_pb2, lineage_pb2, summary_pb2

SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
FIXTURES = SHARED / "fixtures" / "mindspore"
CORPUS = SHARED / "reference" / "mindinsight" / "corpus"
MANIFEST = FIXTURES / "MANIFEST.json"
PLUGIN = {"landscape": "loss_landscape"}  # MANIFEST plugin name -> ours, where they differ


@cache
def _manifest() -> dict[str, Any]:
    return json.loads(MANIFEST.read_text(encoding="utf-8"))


def manifest() -> dict[str, Any]:
    if not MANIFEST.exists():
        pytest.skip(f"{MANIFEST} is absent: the real MindSpore fixtures live in ../shared (present in CI)")
    return _manifest()


def _run_names() -> list[str]:
    return sorted(_manifest()["runs"]) if MANIFEST.exists() else ["<no ../shared>"]


def _tagged_runs() -> list[str]:
    return [r for r in _run_names() if not MANIFEST.exists() or _manifest()["runs"][r]["tags"]]


@pytest.fixture
def manifest_base() -> storage.Location:
    """Where the checks read the fixtures from (overridden by test_remote_manifest.py for S3)."""
    manifest()
    return FIXTURES


def file_names(run_dir: storage.Location, suffix: str) -> list[str]:
    """Names of the files of `run_dir` ending in `suffix`, in MindSpore's file order (via the storage seam)."""
    entries, _ = storage.list_dir(run_dir)
    return sorted((e.name for e in entries if e.is_file and e.name.endswith(suffix)), key=summary_sort_key)


_loaded: dict[tuple[str, str], tuple[list[SummaryValue], list[Any], dict[str, Any]]] = {}


def load_run(base: storage.Location, name: str) -> tuple[list[SummaryValue], list[Any], dict[str, Any]]:
    """Every value of the run's summary files (in timestamp order), the problems, and per-file results."""
    key = (storage.describe(base), name)
    if key not in _loaded:
        _loaded[key] = _load_run(base, name)
    return _loaded[key]


def _load_run(base: storage.Location, name: str) -> tuple[list[SummaryValue], list[Any], dict[str, Any]]:
    run_dir = base / name
    values: list[SummaryValue] = []
    problems: list[Any] = []
    per_file: dict[str, Any] = {}
    for file_name in file_names(run_dir, "_MS"):
        read = read_all(run_dir / file_name)
        parsed = parse_summary_records(read.records, file_name, read.offsets)
        values += parsed.values
        problems += read.problems + parsed.problems
        per_file[file_name] = read
    return values, problems, per_file


def by_tag(values: list[SummaryValue]) -> dict[str, list[SummaryValue]]:
    out: dict[str, list[SummaryValue]] = defaultdict(list)
    for value in values:
        out[value.tag].append(value)
    return out


def _float32(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _float32(v) for k, v in obj.items()}
    if isinstance(obj, float):
        return float(np.float32(obj))
    return obj


def test_protobuf_backend_is_upb() -> None:
    assert api_implementation.Type() == "upb"


def test_discovery_matches_the_manifest(manifest_base: storage.Location) -> None:
    runs = manifest()["runs"]
    found = {r.train_id for r in scan_runs(manifest_base).runs}
    expected = {f"./{name}" for name, run in runs.items() if run["discoverable_by_mindinsight"]}
    # by our rule a profiler dir holding any file makes a run; MindInsight 2.3.1 does not see 2.10's layout
    expected.add("./profiler_only_legacy_api")
    assert found == expected
    assert "./nested" not in found and "./empty_run" not in found


@pytest.mark.parametrize("name", _run_names())
def test_files_of_each_run(manifest_base: storage.Location, name: str) -> None:
    run = manifest()["runs"][name]
    if "/" in name:  # nested/deep_run: not a run for the watcher, read directly
        return
    info = scan_run(manifest_base, f"./{name}")
    summary = sorted(f for f, v in run["files"].items() if v.get("kind") in ("summary", "fake_summary"))
    lineage = sorted(f for f, v in run["files"].items() if v.get("kind") == "lineage")
    if not summary and not lineage and info is None:
        return
    assert info is not None
    assert [f.name for f in info.summary_files] == sorted(summary, key=summary_sort_key)
    assert [f.name for f in info.lineage_files] == sorted(lineage, key=summary_sort_key)
    for f in info.summary_files + info.lineage_files:
        assert f.size == run["files"][f.name]["bytes"]


@pytest.mark.parametrize("name", _run_names())
def test_record_sequence_of_each_file(manifest_base: storage.Location, name: str) -> None:
    run = manifest()["runs"][name]
    for file_name, meta in run["files"].items():
        if meta.get("kind") != "summary" or meta.get("damage"):
            continue
        read = read_all(manifest_base / name / file_name)
        assert not read.problems and read.offset == meta["bytes"]
        kinds = []
        for payload in read.records:
            event = summary_pb2.Event()
            event.ParseFromString(payload)
            kind = event.WhichOneof("what")
            kinds.append((kind if kind != "graph_def" else "graph", event.step))
        assert kinds == [(e["kind"], e["step"]) for e in meta["events"]]


@pytest.mark.parametrize("name", _tagged_runs())
def test_tags_types_and_steps(manifest_base: storage.Location, name: str) -> None:
    run = manifest()["runs"][name]
    values, _, _ = load_run(manifest_base, name)
    tags = by_tag([v for v in values if v.plugin != "graph"])
    expected = {t["mindinsight_tag"]: t for t in run["tags"].values()}
    assert set(tags) == set(expected)
    for tag, meta in expected.items():
        series = tags[tag]
        assert {v.plugin for v in series} == {PLUGIN.get(meta["plugin"], meta["plugin"])}, tag
        assert [v.step for v in series] == meta["steps"], tag
        assert sorted({v.source_file for v in series}) == sorted(meta["files"]), tag


@pytest.mark.parametrize("name", _tagged_runs())
def test_scalar_values_are_exact_float32(manifest_base: storage.Location, name: str) -> None:
    values, _, _ = load_run(manifest_base, name)
    tags = by_tag(values)
    for meta in manifest()["runs"][name]["tags"].values():
        if meta["plugin"] != "scalar":
            continue
        got = [v.value for v in tags[meta["mindinsight_tag"]]]
        assert got[0] == meta["first_value"] and got[-1] == meta["last_value"]
        if "values" in meta:
            assert got == meta["values"] or all(
                a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(got, meta["values"], strict=True))
        assert all(float(np.float32(v)) == v or math.isnan(v) for v in got)


@pytest.mark.parametrize("name", _tagged_runs())
def test_images(manifest_base: storage.Location, name: str) -> None:
    values, _, _ = load_run(manifest_base, name)
    tags = by_tag(values)
    for meta in manifest()["runs"][name]["tags"].values():
        if meta["plugin"] != "image":
            continue
        sizes = [[v.value.height, v.value.width] for v in tags[meta["mindinsight_tag"]]]
        collapsed = [s for i, s in enumerate(sizes) if i == 0 or s != sizes[i - 1]]
        assert collapsed == meta["image_sizes"]
        assert all(v.value.encoded.startswith(b"\x89PNG") for v in tags[meta["mindinsight_tag"]])


@pytest.mark.parametrize("name", _tagged_runs())
def test_histograms(manifest_base: storage.Location, name: str) -> None:
    values, _, _ = load_run(manifest_base, name)
    tags = by_tag(values)
    for meta in manifest()["runs"][name]["tags"].values():
        if meta["plugin"] != "histogram":
            continue
        series = tags[meta["mindinsight_tag"]]
        assert len(series) == len(meta["per_step"])
        for value, want in zip(series, meta["per_step"], strict=True):
            h = value.value
            assert value.step == want["step"]
            assert h.total == want["count"]
            assert (h.nan_count, h.pos_inf_count, h.neg_inf_count) == (
                want["nan_count"], want["pos_inf_count"], want["neg_inf_count"])
            assert (h.min, h.max) == (want["min"], want["max"])
            assert len(h.left) == want["buckets"]


@pytest.mark.parametrize("name", _tagged_runs())
def test_tensors(manifest_base: storage.Location, name: str) -> None:
    values, _, _ = load_run(manifest_base, name)
    tags = by_tag(values)
    for meta in manifest()["runs"][name]["tags"].values():
        if meta["plugin"] != "tensor":
            continue
        for value in tags[meta["mindinsight_tag"]]:
            tensor = value.value
            assert list(tensor.dims) == meta["dims"] and list(tensor.array.shape) == meta["dims"]
            assert tensor.data_type == "DT_" + meta["dtype"].upper()
            assert tensor.array.dtype == np.dtype(meta["dtype"])


@pytest.mark.parametrize("name", _tagged_runs())
def test_landscapes(manifest_base: storage.Location, name: str) -> None:
    values, _, _ = load_run(manifest_base, name)
    tags = by_tag(values)
    for meta in manifest()["runs"][name]["tags"].values():
        if meta["plugin"] != "landscape":
            continue
        (value,), (want,) = tags[meta["mindinsight_tag"]], meta["landscapes"]
        land = value.value
        assert (land.metadata.decomposition, land.metadata.unit, land.metadata.step_per_epoch) == (
            want["decomposition"], want["unit"], want["step_per_epoch"])
        assert list(land.landscape.z.dims) == want["z_dims"]
        z = np.asarray(land.landscape.z.float_data, dtype=np.float64)
        assert (z.min(), z.max()) == pytest.approx((want["z_min"], want["z_max"]))
        assert list(land.loss_path.intervals) == want["loss_path_intervals"]
        assert len(land.loss_path.points.x.float_data) == want["loss_path_points"]
        assert land.HasField("convergence_point") == want["has_convergence_point"]


@pytest.mark.parametrize("name", _run_names())
def test_graphs(manifest_base: storage.Location, name: str) -> None:
    run = manifest()["runs"][name]
    if not run.get("graphs"):
        return
    values, _, _ = load_run(manifest_base, name)
    graphs = [v for v in values if v.plugin == "graph"]
    assert [(g.tag, g.step) for g in graphs] == [(m["file"], m["step"]) for m in run["graphs"]]
    for value, want in zip(graphs, run["graphs"], strict=True):
        graph = value.value
        assert graph.name == want["name"]
        assert len(graph.node) == want["nodes"]
        assert len(graph.parameters) == want["parameters"] and len(graph.const_vals) == want["const_vals"]
        counts: dict[str, int] = defaultdict(int)
        for node in graph.node:
            counts[node.op_type] += 1
        assert counts == want["op_type_counts"]


@pytest.mark.parametrize("name", _run_names())
def test_lineage(manifest_base: storage.Location, name: str) -> None:
    run = manifest()["runs"][name]
    if not run.get("lineage"):
        return
    events: dict[str, list[tuple[str, lineage_pb2.LineageEvent]]] = defaultdict(list)
    for file_name in file_names(manifest_base / name, "_lineage"):
        read = read_all(manifest_base / name / file_name)
        parsed = parse_lineage_records(read.records, file_name, read.offsets)
        assert not read.problems and not parsed.problems
        for event in parsed.events:
            events[event.WhichOneof("what")].append((file_name, event))
            assert event.step == 0
    kinds = {"dataset_graph": "dataset_graph", "custom_lineage_data": "user_defined_info",
             "train_lineage": "train_lineage", "eval_lineage": "evaluation_lineage"}
    for key, field in kinds.items():
        got, want = events.get(field, []), run["lineage"].get(key, [])
        assert [f for f, _ in got] == [w["file"] for w in want], key
        for (_, event), w in zip(got, want, strict=True):
            message = getattr(event, field)
            content = w["content"]
            if key == "train_lineage":
                got_dict = json_format.MessageToDict(message, preserving_proto_field_name=True)
                assert _float32(got_dict) == _float32(content)  # float fields are float32 on disk
            elif key == "eval_lineage":
                assert message.HasField("metric") == content["metric_present"]
                if content["metric_present"]:
                    assert json.loads(message.metric) == content["metric_parsed"]
                assert message.valid_dataset.valid_dataset_size == content["valid_dataset"]["valid_dataset_size"]
            elif key == "custom_lineage_data":
                flat = {}
                for info in message.user_info:
                    for kind, m in (("str", info.map_str), ("int32", info.map_int32), ("double", info.map_double)):
                        flat.update({k: {"type": kind, "value": v} for k, v in m.items()})
                assert flat == content
            else:
                assert message.ByteSize() == content["bytes"]


def test_crc_corrupt_skips_exactly_step_8(manifest_base: storage.Location) -> None:
    damage = manifest()["runs"]["crc_corrupt"]["files"]["events.out.events.summary.1795313460.0.vm_MS"]["damage"]
    values, problems, _ = load_run(manifest_base, "crc_corrupt")
    assert [(p.kind, p.offset) for p in problems] == [("payload_crc", damage["record_offset"])]
    steps = sorted({v.step for v in values})
    assert steps == damage["loadable_steps_resync"] and 8 not in steps
    loss = [v.value for v in values if v.tag == "edge/loss/scalar"]
    assert damage["value_if_crc_ignored"] not in loss


def test_truncated_keeps_steps_1_to_12_and_waits_for_the_rest(manifest_base: storage.Location) -> None:
    meta = manifest()["runs"]["truncated"]["files"]["events.out.events.summary.1795313457.0.vm_MS"]
    values, problems, per_file = load_run(manifest_base, "truncated")
    assert problems == []
    assert sorted({v.step for v in values}) == meta["damage"]["loadable_steps"] == list(range(1, 13))
    read = per_file["events.out.events.summary.1795313457.0.vm_MS"]
    assert read.offset == meta["damage"]["record_offset"] and not read.stopped
    assert read.pending_bytes == meta["bytes"] - meta["damage"]["record_offset"]


def test_not_summary_is_rejected_without_values(manifest_base: storage.Location) -> None:
    values, problems, per_file = load_run(manifest_base, "not_summary")
    assert values == []
    assert [(p.kind, p.offset) for p in problems] == [("length_crc", 0)]
    assert "no valid record" in problems[0].message  # scanned for a record to resynchronise on: none
    assert all(not r.records and r.pending_bytes == 0 for r in per_file.values())


def test_nested_run_reads_fine_when_asked_directly(manifest_base: storage.Location) -> None:
    values, problems, _ = load_run(manifest_base, "nested/deep_run")
    assert problems == [] and values
    tags = manifest()["runs"]["nested/deep_run"]["tags"].values()
    assert {v.tag for v in values} == {t["mindinsight_tag"] for t in tags}


# ---------------------------------------------------------------------- wire compatibility of our protos
# MindSpore 2.10 writes TypeProto.data_type = 49 for UpdateState's monad output, a DataType value newer
# than any public anf_ir.proto. MindInsight 2.3.1 does not know it either and shows "DT_UNDEFINED"; we keep
# it unknown on purpose so the graph shows the same. Nothing else may be unknown.
ALLOWED_UNKNOWN = {("mindspore.irpb.TypeProto", 1)}


def _unknown(message: Message) -> Iterator[tuple[str, int]]:
    for item in unknown_fields.UnknownFieldSet(message):
        yield message.DESCRIPTOR.full_name, item.field_number
    for field, value in message.ListFields():
        if field.message_type is None:
            continue
        if field.message_type.GetOptions().map_entry:
            children = value.values() if field.message_type.fields_by_name["value"].message_type else []
        else:
            children = value if field.is_repeated else [value]
        for child in children:
            yield from _unknown(child)


def _record_files() -> list[Path]:
    if not SHARED.exists():
        return []
    return sorted(p for root in (FIXTURES, CORPUS) if root.exists()
                  for p in root.rglob("*summary.*") if p.is_file() and not p.name.endswith("_explain"))


def test_every_fixture_record_decodes_with_no_unknown_fields() -> None:
    files = _record_files()
    if not files:
        pytest.skip(f"{SHARED} is absent: the real MindSpore fixtures live in ../shared (present in CI)")
    decoded = 0
    for path in files:
        message_type = lineage_pb2.LineageEvent if path.name.endswith("_lineage") else summary_pb2.Event
        for payload in read_all(path).records:
            message = message_type()
            message.ParseFromString(payload)
            assert set(_unknown(message)) <= ALLOWED_UNKNOWN, path
            assert message.ByteSize() == len(payload), path  # nothing dropped, nothing added
            decoded += 1
    assert decoded > 1000
    assert anf_ir_pb2.DataType.Name(11) == "DT_FLOAT32"
