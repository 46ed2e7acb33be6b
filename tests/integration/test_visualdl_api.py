"""VisualDL logs (`vdlrecords.<ts>.log`) served through create_app like MindSpore and TensorBoard files.

* `../shared/fixtures/visualdl/` (written by VisualDL 2.5.3's LogWriter; EXPECTED.json read back with its own
  LogReader): every value through the API (scalars, add_scalars groups, text, images, histograms, PR and ROC
  curves, audio, embeddings, hparams; steps and wall times of each; VisualDL's own logdir view); both files of `two_files/` (VisualDL shows only the newer); `damaged/`'s 451 complete
  records with its torn tail reported.
* Test-made files (records written with our compiled `vdl_record_pb2`), so the same ground is covered without
  ../shared: every kind, a record cut in the middle of a file (skipped, counted), a live file growing (a cut
  record at the end waits), and the same run over S3.
"""

from __future__ import annotations

import hashlib
import io
import json
import struct
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient
from PIL import Image as PILImage

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.proto import vdl_record_pb2
from mindinsight_clone.server.app import create_app
from tests.conftest import SHARED, require_shared
from tests.remote_base import s3_app
from tests.s3_server import S3Server

API = "/v1/mindinsight/datavisual"
VDL_FIXTURES = SHARED / "fixtures" / "visualdl"
Record = vdl_record_pb2.Record
T0_MS = 1_749_542_400_000


def _app(base: Path, workspace: Path) -> Flask:
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(workspace), reload_interval=0,
                                  scalar_samples=1000, max_depth=2)
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app


def _get(client: FlaskClient, path: str) -> Any:
    response = client.get(API + path)
    assert response.status_code == 200, (path, response.get_data(as_text=True)[:300])
    return response.get_json()


def _q(text: str) -> str:
    return quote(text, safe="")


def _job(client: FlaskClient, train_id: str) -> dict[str, Any]:
    (job,) = _get(client, f"/train-jobs?train_id={_q(train_id)}")["train_jobs"]
    return job


def _scalars(client: FlaskClient, train_id: str, tag: str) -> list[dict[str, Any]]:
    return _get(client, f"/scalar/metadata?train_id={_q(train_id)}&tag={_q(tag + '/scalar')}")["metadatas"]


# ---------------------------------------------------------------------- ../shared fixtures
@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    require_shared(VDL_FIXTURES)
    return json.loads((VDL_FIXTURES / "EXPECTED.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def shared_app(expected: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> Flask:
    return _app(VDL_FIXTURES, tmp_path_factory.mktemp("vdl_ws"))


def _kinds(expected: dict[str, Any], run: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(kind, tag, facts) over every file of `run`."""
    for file in expected["runs"][run]["files"]:
        for kind, tags in file["kinds"].items():
            for tag, facts in tags.items():
                yield kind, tag, facts


def _check_scalar(points: list[dict[str, Any]], facts: dict[str, Any]) -> None:
    assert len(points) == facts["count"]
    assert (points[0]["step"], points[-1]["step"]) == (facts["first_step"], facts["last_step"])
    assert points[0]["wall_time"] == facts["first_walltime_ms"] / 1000
    assert points[-1]["wall_time"] == facts["last_walltime_ms"] / 1000
    values = [p["value"] for p in points]
    assert (values[0], values[-1], min(values), max(values)) == (
        facts["first_value"], facts["last_value"], facts["min"], facts["max"])
    by_step = {p["step"]: p["value"] for p in points}
    assert {s: by_step[int(s)] for s in facts["values_at"]} == facts["values_at"]
    assert sum(v != v for v in values) == facts["nan_count"]
    assert sum(v in (float("inf"), float("-inf")) for v in values) == facts["inf_count"]


def test_runs_and_kinds_listed(shared_app: Flask, expected: dict[str, Any]) -> None:
    client = shared_app.test_client()
    jobs = {j["train_id"]: j for j in _get(client, "/train-jobs?limit=100")["train_jobs"]}
    assert set(jobs) == {f"./{run}" for run in expected["runs"]}
    for run in expected["runs"]:
        job = _job(client, f"./{run}")
        assert job["cache_status"] == "CACHED"
        assert job["summary_files"] == len(expected["runs"][run]["files"])
    assert _job(client, "./scalar")["plugins"]["scalar"] == ["lr/scalar", "train/acc/scalar", "train/loss/scalar"]
    assert _job(client, "./scalars")["plugins"]["scalar"] == ["loss_compare/eval/scalar", "loss_compare/train/scalar"]
    assert _job(client, "./image")["plugins"]["image"] == [
        "samples/gray/image", "samples/matrix/image", "samples/rgb/image"]
    assert _job(client, "./histogram")["plugins"]["histogram"] == ["fc1/bias/histogram", "fc1/weight/histogram"]
    assert _job(client, "./text")["text_tags"] == ["config", "log/epoch_summary"]


def test_scalars_as_visualdl_wrote_them(shared_app: Flask, expected: dict[str, Any]) -> None:
    client = shared_app.test_client()
    for run in ("scalar", "hparams/session_1", "hparams/session_2", "hparams/session_3"):
        for kind, tag, facts in _kinds(expected, run):
            if kind == "scalar":
                _check_scalar(_scalars(client, f"./{run}", tag), facts)
    for kind, tag, facts in _kinds(expected, "scalars"):
        if kind != "scalars":
            continue
        for sub, sub_facts in facts["sub_tags"].items():
            points = _scalars(client, "./scalars", f"{tag}/{sub}")
            assert len(points) == sub_facts["count"]
            assert (points[0]["step"], points[-1]["step"]) == (sub_facts["first_step"], sub_facts["last_step"])
            assert (points[0]["value"], points[-1]["value"]) == (sub_facts["first_value"], sub_facts["last_value"])


def test_every_file_of_a_run_is_read(shared_app: Flask, expected: dict[str, Any]) -> None:
    """`two_files/`: VisualDL shows only the newer file (steps 50-119); we show both, oldest first."""
    points = _scalars(shared_app.test_client(), "./two_files", "train/loss")
    files = [f["kinds"]["scalar"]["train/loss"] for f in expected["runs"]["two_files"]["files"]]
    assert [p["step"] for p in points] == list(range(0, 120))
    _check_scalar(points[:50], files[0])
    _check_scalar(points[50:], files[1])


def test_damaged_file_serves_its_complete_records(shared_app: Flask, expected: dict[str, Any]) -> None:
    client = shared_app.test_client()
    for kind, tag, facts in _kinds(expected, "damaged"):
        if kind == "scalar":
            _check_scalar(_scalars(client, "./damaged", tag), facts)
    job = _job(client, "./damaged")
    cut = expected["damaged"]["damaged"]
    assert job["is_integrity"] is False
    assert [(p["kind"], p["offset"]) for p in job["problems"]] == [("truncated", cut["record_offset"])]


def test_text_images_audio_pr_as_written(shared_app: Flask, expected: dict[str, Any]) -> None:
    client = shared_app.test_client()
    for _kind, tag, facts in _kinds(expected, "text"):
        if _kind == "text":
            texts = _get(client, f"/text?train_id=./text&tag={_q(tag)}")["texts"]
            assert [(t["step"], t["value"]) for t in texts] == [(t["step"], t["text"]) for t in facts["texts"]]
    for kind, tag, facts in _kinds(expected, "image"):
        if kind != "image":
            continue
        meta = _get(client, f"/image/metadata?train_id=./image&tag={_q(tag + '/image')}")["metadatas"]
        assert [(m["step"], m["width"], m["height"]) for m in meta] == [
            (i["step"], i["width"], i["height"]) for i in facts["images"]]
        for image in facts["images"]:
            data = client.get(f"{API}/image/single-image?train_id=./image&tag={_q(tag + '/image')}"
                              f"&step={image['step']}").data
            assert (len(data), hashlib.md5(data).hexdigest()) == (image["bytes"], image["md5"])
    for kind, tag, facts in _kinds(expected, "audio"):
        if kind != "audio":
            continue
        meta = _get(client, f"/audio/metadata?train_id=./audio&tag={_q(tag)}")["metadatas"]
        assert [(m["step"], m["sample_rate"], m["num_channels"], m["length_frames"], m["bytes"]) for m in meta] == [
            (a["step"], a["sample_rate"], a["num_channels"], a["length_frames"], a["bytes"]) for a in facts["audios"]]
        for clip in facts["audios"]:
            data = client.get(f"{API}/audio/single-audio?train_id=./audio&tag={_q(tag)}&step={clip['step']}").data
            assert hashlib.md5(data).hexdigest() == clip["md5"]
    for kind, tag, facts in _kinds(expected, "pr_curve"):
        if kind != "pr_curve":
            continue
        curves = _get(client, f"/pr-curves?train_id=./pr_curve&tag={_q(tag)}")["curves"]
        assert [c["step"] for c in curves] == list(range(facts["first_step"], facts["last_step"] + 1))
        assert [len(c["tp"]) for c in curves] == facts["num_thresholds"]
        first = facts["first_step_curve"]
        for ours, theirs in (("tp", "TP"), ("fp", "FP"), ("tn", "TN"), ("fn", "FN"), ("precision", "precision"),
                             ("recall", "recall")):
            assert curves[0][ours] == [float(v) for v in first[theirs]]
        assert [curves[-1]["tp"][0], curves[-1]["fp"][0]] == facts["last_step_TP0_FP0"]


def test_hparams_as_sessions(shared_app: Flask, expected: dict[str, Any]) -> None:
    """`add_hparams` runs are hparams sessions; each metric is the last value of its scalar tag (as VisualDL)."""
    body = _get(shared_app.test_client(), "/hparams/sessions")
    got = [{"name": s["train_id"][2:], "hparams": s["hparams"], "metrics": s["metrics"]} for s in body["sessions"]]
    assert got == expected["logdir_view_without_damaged"]["hparam_list"]
    for session in body["sessions"]:
        assert session["hparam_types"] == {"lr": "DATA_TYPE_FLOAT64", "batch_size": "DATA_TYPE_FLOAT64",
                                           "optimizer": "DATA_TYPE_STRING"}
        run = session["train_id"][2:]
        (facts,) = [f for k, _t, f in _kinds(expected, run) if k == "hyper_parameters"]
        assert {n: h["value"] for n, h in facts["hparams"].items()} == session["hparams"]
        assert sorted(session["metrics"]) == facts["metric_names"]


def test_histograms_as_written(shared_app: Flask, expected: dict[str, Any]) -> None:
    client = shared_app.test_client()
    cache = shared_app.extensions["mindinsight_clone"].data_manager.run_cache("./histogram")
    for kind, tag, facts in _kinds(expected, "histogram"):
        if kind != "histogram":
            continue
        ours = f"{tag}/histogram"
        body = _get(client, f"/histograms?train_id=./histogram&tag={_q(ours)}")["histograms"]
        assert [h["step"] for h in body] == [h["step"] for h in facts["histograms"]]
        assert body[-1]["wall_time"] == facts["last_walltime_ms"] / 1000
        for sample, want in zip(cache.samples("histogram", ours), facts["histograms"], strict=True):
            value = sample.value
            assert (sample.step, value.count.size, value.total) == (want["step"], want["buckets"], want["total_count"])
            assert value.left[0] == pytest.approx(want["left"], abs=1e-12)
            assert value.left[-1] + value.width[-1] == pytest.approx(want["right"], abs=1e-12)
        first = cache.samples("histogram", ours)[0].value
        assert first.count.tolist() == facts["first_hist"]
        assert first.left.tolist() == pytest.approx(facts["first_bin_edges"][:-1], abs=1e-12)


def _steps_and_times(app: Flask, run: str, kind: str, tag: str, facts: dict[str, Any]) -> list[tuple[int, float]]:
    """(step, wall time) of every value we serve for one of EXPECTED's (kind, tag) of `run`."""
    client = app.test_client()
    train_id = f"./{run}"
    if kind == "scalars":
        points = [p for sub in facts["sub_tags"] for p in _scalars(client, train_id, f"{tag}/{sub}")]
        return sorted((p["step"], p["wall_time"]) for p in points)
    if kind in ("embeddings", "hyper_parameters"):  # one value each: its step and wall time as cached
        plugin, ours = ("embedding", tag) if kind == "embeddings" else ("hparams", "_hparams_/session_start_info")
        cache = app.extensions["mindinsight_clone"].data_manager.run_cache(train_id)
        return [(s.step, s.wall_time) for s in cache.samples(plugin, ours)]
    path, key = {
        "scalar": (f"/scalar/metadata?tag={_q(tag + '/scalar')}", "metadatas"),
        "image": (f"/image/metadata?tag={_q(tag + '/image')}", "metadatas"),
        "text": (f"/text?tag={_q(tag)}", "texts"),
        "audio": (f"/audio/metadata?tag={_q(tag)}", "metadatas"),
        "histogram": (f"/histograms?tag={_q(tag + '/histogram')}", "histograms"),
        "pr_curve": (f"/pr-curves?tag={_q(tag)}", "curves"),
        "roc_curve": (f"/pr-curves?tag={_q(tag + '/roc_curve')}", "curves"),
    }[kind]
    return [(p["step"], p["wall_time"]) for p in _get(client, f"{path}&train_id={_q(train_id)}")[key]]


def test_every_value_has_its_steps_and_wall_times(shared_app: Flask, expected: dict[str, Any]) -> None:
    """For every run, kind and tag of EXPECTED (every file of a run, oldest first): count, first and last step
    and wall time of what is served. `meta_data` (the writer's display name, "" in every file) is not served."""
    checked = 0
    for run in expected["runs"]:
        merged: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for kind, tag, facts in _kinds(expected, run):
            merged.setdefault((kind, tag), []).append(facts)
        for (kind, tag), parts in merged.items():
            if kind == "meta_data":
                assert {n for f in parts for n in f["display_names"]} == {""}
                continue
            got = _steps_and_times(shared_app, run, kind, tag, parts[0])
            assert len(got) == sum(f["count"] for f in parts), (run, kind, tag)
            assert (got[0][0], got[-1][0]) == (parts[0]["first_step"], parts[-1]["last_step"]), (run, kind, tag)
            assert got[0][1] == parts[0]["first_walltime_ms"] / 1000, (run, kind, tag)
            assert got[-1][1] == parts[-1]["last_walltime_ms"] / 1000, (run, kind, tag)
            if kind == "scalars":
                assert len({step for step, _ in got}) == parts[0]["distinct_steps"]
            checked += 1
    assert checked == 28


def test_roc_curves_as_stored(shared_app: Flask, expected: dict[str, Any]) -> None:
    """`add_roc_curve` -> the PR-curves plugin as `<tag>/roc_curve`: the counts, VisualDL's stored tpr/fpr rows
    (its tpr is TP / (TN + FP), kept as written) and precision/recall from the counts."""
    client = shared_app.test_client()
    (facts,) = [f for k, _t, f in _kinds(expected, "roc_curve") if k == "roc_curve"]
    assert _job(client, "./roc_curve")["plugins"]["pr_curve"] == ["roc/cat/roc_curve"]
    curves = _get(client, "/pr-curves?train_id=./roc_curve&tag=roc/cat/roc_curve")["curves"]
    assert [len(c["tp"]) for c in curves] == facts["num_thresholds"]
    assert {c["kind"] for c in curves} == {"roc"}
    first = facts["first_step_curve"]
    for ours, theirs in (("tp", "TP"), ("fp", "FP"), ("tn", "TN"), ("fn", "FN"), ("tpr", "tpr"), ("fpr", "fpr")):
        assert curves[0][ours] == [float(v) for v in first[theirs]]
    tp, fp, fn = (np.array(first[k], dtype=float) for k in ("TP", "FP", "FN"))
    assert curves[0]["recall"] == (tp / np.maximum(1e-7, tp + fn)).tolist()
    assert curves[0]["precision"] == (tp / np.maximum(1e-7, tp + fp)).tolist()
    assert [curves[-1]["tp"][0], curves[-1]["fp"][0]] == facts["last_step_TP0_FP0"]
    pr = _get(client, "/pr-curves?train_id=./pr_curve&tag=pr/cat")["curves"]
    assert "kind" not in pr[0] and "tpr" not in pr[0]


def test_embeddings_in_the_projector(shared_app: Flask, expected: dict[str, Any]) -> None:
    client = shared_app.test_client()
    (facts,) = [f for k, _t, f in _kinds(expected, "embeddings") if k == "embeddings"]
    view = expected["logdir_view_without_damaged"]["embeddings_list"]
    (listed,) = _get(client, "/embeddings?train_id=./embeddings")["embeddings"]
    assert [f"embeddings/{listed['tag']}"] == [e["name"] for e in view]
    assert listed["shape"] == view[0]["shape"] == [facts["rows"], facts["dim"]]
    assert listed["metadata_columns"] == (facts["label_meta"] or ["label"]) and facts["label_columns"] == 1
    body = _get(client, "/embedding?train_id=./embeddings&tag=features")
    assert body["shape"] == [facts["rows"], facts["dim"]] and "truncated" not in body
    # float32 as written, each in its shortest form
    assert np.array_equal(np.float32(body["values"][0]), np.float32(facts["first_row"]["vector"]))
    assert body["metadata"]["columns"] == ["label"]
    rows = body["metadata"]["rows"]
    assert (len(rows), rows[0], rows[-1]) == (facts["rows"], facts["first_row"]["label"], facts["last_row_label"])
    small = _get(client, "/embedding?train_id=./embeddings&tag=features&max_points=7")
    assert len(small["values"]) == len(small["metadata"]["rows"])


def test_images_audio_file_facts(shared_app: Flask, expected: dict[str, Any]) -> None:
    """What EXPECTED says of the bytes served: image mode and format, the audio's content type and WAV header."""
    client = shared_app.test_client()
    for kind, tag, facts in _kinds(expected, "image"):
        for image in facts.get("images", []) if kind == "image" else []:
            data = client.get(f"{API}/image/single-image?train_id=./image&tag={_q(tag + '/image')}"
                              f"&step={image['step']}").data
            with PILImage.open(io.BytesIO(data)) as decoded:
                assert (decoded.mode, decoded.format, decoded.size) == (
                    image["mode"], image["format"], (image["width"], image["height"]))
    for kind, tag, facts in _kinds(expected, "audio"):
        if kind != "audio":
            continue
        meta = _get(client, f"/audio/metadata?train_id=./audio&tag={_q(tag)}")["metadatas"]
        assert [m["content_type"] for m in meta] == [a["content_type"] for a in facts["audios"]]
        for clip in facts["audios"]:
            data = client.get(f"{API}/audio/single-audio?train_id=./audio&tag={_q(tag)}&step={clip['step']}").data
            with wave.open(io.BytesIO(data)) as w:
                assert (w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()) == (
                    clip["wav_channels"], clip["wav_sampwidth"], clip["wav_framerate"], clip["wav_frames"])


def test_files_read_as_visualdl_counts_them(expected: dict[str, Any]) -> None:
    """Each file's size, md5 and record count (VisualDL's RecordReader) as our reader reads it; the damaged copy
    stops at its last complete record (VisualDL's LogReader fails there: `logreader`)."""
    from mindinsight_clone.ingest.vdl_record_reader import VdlRecordReader

    for run, info in expected["runs"].items():
        for file in info["files"]:
            path = VDL_FIXTURES / run / file["name"]
            data = path.read_bytes()
            assert (len(data), hashlib.md5(data).hexdigest()) == (file["bytes"], file["md5"])
            result = VdlRecordReader(path).read()
            assert not result.problems
            if "complete_records" in file:
                assert len(result.records) == file["complete_records"] == file["first_bad_record_index"]
                assert result.pending_bytes == 8 + file["first_bad_record_bytes_read"] and file["logreader"] != "ok"
            else:
                assert (len(result.records), result.offset, file["logreader"]) == (file["records"], len(data), "ok")


def test_logdir_view_as_visualdl_lists_it(shared_app: Flask, expected: dict[str, Any]) -> None:
    """VisualDL's view of the folder (without the damaged run, which breaks its reader): the same runs, and each
    component's tags under ours (add_scalars pseudo-runs `<run>/<main>_<sub>` are `<main>/<sub>/scalar` of the run;
    ROC curves are PR-curve tags `<tag>/roc_curve`; `meta_data` is not shown)."""
    view = expected["logdir_view_without_damaged"]
    client = shared_app.test_client()
    jobs = {j["train_id"][2:]: j for j in _get(client, "/train-jobs?limit=100")["train_jobs"]}
    assert sorted(set(jobs) - set(view["excluded_runs"])) == view["runs_as_named"] == sorted(view["run_files"])
    ours: dict[str, tuple[str, Any]] = {
        "scalar": ("scalar", lambda t: t + "/scalar"), "image": ("image", lambda t: t + "/image"),
        "histogram": ("histogram", lambda t: t + "/histogram"), "text": ("text", str), "audio": ("audio", str),
        "pr_curve": ("pr_curve", str), "roc_curve": ("pr_curve", lambda t: t + "/roc_curve"),
        "embeddings": ("embedding", str)}
    for component, runs in view["tags_by_component"].items():
        for run, tags in runs.items():
            if component == "meta_data":
                continue
            if component == "hyper_parameters":
                assert tags == ["hparam"]
                assert _get(client, f"/hparams?train_id=./{run}")["sessions"]
                continue
            if component == "scalar" and run.startswith("scalars/"):
                main, sub = run.split("/", 1)[1].rsplit("_", 1)
                run, tags = "scalars", [f"{main}/{sub}"]
            plugin, name = ours[component]
            served = jobs[run]["text_tags"] if plugin == "text" else jobs[run]["plugins"][plugin]
            assert {name(t) for t in tags} <= set(served), (component, run)
    assert view["display_names"] == {}
    assert not [run for run, job in jobs.items() if "display_name" in job]  # every file's name is ""


# ---------------------------------------------------------------------- test-made files
def _frame(value: Any) -> bytes:
    payload = Record(values=[value]).SerializeToString()
    return struct.pack("<Q", len(payload)) + payload


def _value(step: int, tag: str, **kind: Any) -> Any:
    return Record.Value(id=step, tag=tag, timestamp=T0_MS + 1500 * step, **kind)


def _png(width: int, height: int, shade: int) -> bytes:
    out = io.BytesIO()
    PILImage.new("RGB", (width, height), (shade, 0, 0)).save(out, format="PNG")
    return out.getvalue()


def _wav(frames: int) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as clip:
        clip.setnchannels(1)
        clip.setsampwidth(2)
        clip.setframerate(8000)
        clip.writeframes(b"\x00\x01" * frames)
    return out.getvalue()


def _made_run() -> list[bytes]:
    """Every kind we show, in the shapes VisualDL's LogWriter writes (meta record first)."""
    frames = [_frame(Record.Value(tag="meta_data_tag", timestamp=T0_MS,
                                  meta_data=Record.MetaData(display_name="基线 run")))]
    for step in range(20):
        frames.append(_frame(_value(step, "train/loss", value=1.0 / (step + 1))))
        for sub, v in (("train", step * 0.5), ("eval", step * 0.25)):
            frames.append(_frame(_value(step, "cmp", tag_value=Record.TagValue(tag=sub, value=v))))
    frames.append(_frame(_value(0, "notes", text=Record.Text(encoded_text_string="完成 ✓"))))
    frames.append(_frame(_value(1, "pic", image=Record.Image(encoded_image_string=_png(6, 4, 200)))))
    edges = np.linspace(-1.0, 1.0, 5)
    frames.append(_frame(_value(2, "w", histogram=Record.Histogram(hist=[1, 2, 3, 4], bin_edges=edges.tolist()))))
    frames.append(_frame(_value(3, "pr", pr_curve=Record.PRCurve(TP=[4, 2, 0], FP=[4, 1, 0], TN=[0, 3, 4],
                                                                 FN=[0, 2, 4], precision=[0.5, 2 / 3, 0.0],
                                                                 recall=[1.0, 0.5, 0.0]))))
    frames.append(_frame(_value(4, "beep", audio=Record.Audio(sample_rate=8000, num_channels=1, length_frames=100,
                                                               encoded_audio_string=_wav(100),
                                                               content_type="audio/wav"))))
    frames.append(_frame(_value(5, "roc", roc_curve=Record.ROC_Curve(TP=[2, 0], FP=[1, 0], TN=[1, 2], FN=[0, 2],
                                                                     tpr=[1.0, 0.0], fpr=[0.5, 0.0]))))
    points = [Record.Embedding(label=[f"p{i}", "odd" if i % 2 else "even"], vectors=[i, -i, 0.5]) for i in range(4)]
    frames.append(_frame(_value(0, "feat", embeddings=Record.Embeddings(embeddings=points,
                                                                         label_meta=["name", "parity"]))))
    info = Record.HParam.HparamInfo
    frames.append(_frame(_value(1, "hparam", hparam=Record.HParam(
        hparamInfos=[info(name="lr", float_value=0.5), info(name="depth", int_value=3), info(name="opt", string_value="sgd")],
        metricInfos=[info(name="train/loss", float_value=0.0)], name="x"))))
    return frames


def _check_made_run(app: Flask, train_id: str) -> None:
    client = app.test_client()
    job = _job(client, train_id)
    assert job["is_integrity"] is True and "problems" not in job
    assert job["display_name"] == "基线 run"  # LogWriter(display_name=...); the train id stays the path
    assert job["plugins"]["scalar"] == ["cmp/eval/scalar", "cmp/train/scalar", "train/loss/scalar"]
    points = _scalars(client, train_id, "train/loss")
    assert [(p["step"], p["value"], p["wall_time"]) for p in points] == [
        (s, float(np.float32(1.0 / (s + 1))), (T0_MS + 1500 * s) / 1000) for s in range(20)]
    assert [p["value"] for p in _scalars(client, train_id, "cmp/eval")] == [s * 0.25 for s in range(20)]
    texts = _get(client, f"/text?train_id={_q(train_id)}&tag=notes")["texts"]
    assert [(t["step"], t["value"]) for t in texts] == [(0, "完成 ✓")]
    meta = _get(client, f"/image/metadata?train_id={_q(train_id)}&tag=pic/image")["metadatas"]
    assert [(m["step"], m["width"], m["height"]) for m in meta] == [(1, 6, 4)]
    image = client.get(f"{API}/image/single-image?train_id={_q(train_id)}&tag=pic/image&step=1").data
    assert image == _png(6, 4, 200)
    histograms = _get(client, f"/histograms?train_id={_q(train_id)}&tag=w/histogram")["histograms"]
    assert [h["step"] for h in histograms] == [2] and histograms[0]["buckets"]
    (sample,) = app.extensions["mindinsight_clone"].data_manager.run_cache(train_id).samples("histogram", "w/histogram")
    assert sample.value.count.tolist() == [1, 2, 3, 4] and sample.value.left.tolist() == [-1.0, -0.5, 0.0, 0.5]
    assert sample.value.width.tolist() == [0.5] * 4
    (curve,) = _get(client, f"/pr-curves?train_id={_q(train_id)}&tag=pr")["curves"]
    assert (curve["step"], curve["tp"], curve["recall"]) == (3, [4.0, 2.0, 0.0], [1.0, 0.5, 0.0])
    meta = _get(client, f"/audio/metadata?train_id={_q(train_id)}&tag=beep")["metadatas"]
    assert [(m["step"], m["length_frames"], m["bytes"]) for m in meta] == [(4, 100, len(_wav(100)))]
    (roc,) = _get(client, f"/pr-curves?train_id={_q(train_id)}&tag=roc/roc_curve")["curves"]
    assert (roc["kind"], roc["tp"], roc["fn"], roc["tpr"], roc["fpr"]) == (
        "roc", [2.0, 0.0], [0.0, 2.0], [1.0, 0.0], [0.5, 0.0])
    assert job["plugins"]["pr_curve"] == ["pr", "roc/roc_curve"] and job["plugins"]["embedding"] == ["feat"]
    emb = _get(client, f"/embedding?train_id={_q(train_id)}&tag=feat")
    assert emb["shape"] == [4, 3] and emb["values"][3] == [3.0, -3.0, 0.5]
    assert emb["metadata"] == {"columns": ["name", "parity"], "rows": [[f"p{i}", "odd" if i % 2 else "even"]
                                                                       for i in range(4)]}
    (session,) = _get(client, f"/hparams?train_id={_q(train_id)}")["sessions"]
    assert session["hparams"] == {"depth": 3, "lr": 0.5, "opt": "sgd"}
    assert session["metrics"] == {"train/loss": float(np.float32(1 / 20))}


def test_made_run_every_kind(tmp_path: Path) -> None:
    run = tmp_path / "base" / "made"
    run.mkdir(parents=True)
    (run / "vdlrecords.1750000000.log").write_bytes(b"".join(_made_run()))
    _check_made_run(_app(tmp_path / "base", tmp_path / "ws"), "./made")


def test_made_run_over_s3(s3_server: S3Server, tmp_path: Path) -> None:
    run = tmp_path / "base" / "made"
    run.mkdir(parents=True)
    (run / "vdlrecords.1750000000.log").write_bytes(b"".join(_made_run()))
    s3_server.upload_tree(tmp_path / "base", "visualdl", "made/base")
    app = s3_app(s3_server, "s3://visualdl/made/base", tmp_path / "ws", scalar_samples=1000)
    _check_made_run(app, "./made")


def test_record_cut_in_the_middle_is_skipped_and_counted(tmp_path: Path) -> None:
    """A writer that died mid-record and a new one that appended to the same file: the torn record is skipped
    (a bad_payload problem), the records before and after it are served."""
    good = [_frame(_value(s, "loss", value=float(s))) for s in range(6)]
    torn = good[3][:11]  # the length and 3 bytes of the payload
    data = b"".join(good[:3]) + torn + b"".join(good[3:])
    run = tmp_path / "base" / "run"
    run.mkdir(parents=True)
    (run / "vdlrecords.1750000000.log").write_bytes(data)
    client = _app(tmp_path / "base", tmp_path / "ws").test_client()
    assert [p["step"] for p in _scalars(client, "./run", "loss")] == list(range(6))
    problems = _job(client, "./run")["problems"]
    assert [(p["kind"], p["offset"]) for p in problems] == [("bad_payload", len(b"".join(good[:3])))]


def test_live_file_grows(tmp_path: Path) -> None:
    """A record cut at the end of a growing file waits for its bytes; nothing is lost or counted as damage."""
    frames = [_frame(_value(s, "loss", value=float(s))) for s in range(10)]
    data = b"".join(frames)
    cut = len(b"".join(frames[:4])) + 5  # inside record 4's length
    run = tmp_path / "base" / "run"
    run.mkdir(parents=True)
    path = run / "vdlrecords.1750000000.log"
    path.write_bytes(data[:cut])
    app = _app(tmp_path / "base", tmp_path / "ws")
    client = app.test_client()
    assert [p["step"] for p in _scalars(client, "./run", "loss")] == [0, 1, 2, 3]
    assert [p["kind"] for p in _job(client, "./run")["problems"]] == ["truncated"]
    manager = app.extensions["mindinsight_clone"].data_manager
    cut2 = len(b"".join(frames[:7])) + 12  # inside record 7's payload
    with path.open("ab") as f:
        f.write(data[cut:cut2])
    manager.reload()
    assert [p["step"] for p in _scalars(client, "./run", "loss")] == list(range(7))
    with path.open("ab") as f:
        f.write(data[cut2:])
    (run / "vdlrecords.1750000100.log").write_bytes(_frame(_value(10, "loss", value=10.0)))
    manager.reload()
    assert [p["step"] for p in _scalars(client, "./run", "loss")] == list(range(11))
    job = _job(client, "./run")
    assert job["is_integrity"] is True and "problems" not in job and job["summary_files"] == 2
