"""TensorBoard kinds with bad input: each gets a clear message and the rest of the run is still served.

Hostile runs are written with our own TfeventsWriter (and raw protos where a writer would never go wrong):
a malformed `str(dict)`, a text longer than `text_max_chars`, a PR tensor of the wrong shape, audio that is not a
WAV, projector configs whose paths leave the run folder (TensorBoard CVE-class bug #7115) or do not parse, a
literal_eval bomb; plus bad request bodies and parameters. Also: add_scalars sub-folders are never runs, at any
`--max-depth` (tensorboardX's and torch's layouts), and add_hparams sessions are runs even beyond it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.proto import tb_event_pb2, tb_types_pb2
from mindinsight_clone.server.app import create_app
from mindinsight_clone.summary.tfevents_writer import TfeventsWriter
from tests.conftest import require_shared
from tests.integration.test_tb_kinds_api import TB_FIXTURES

API = "/v1/mindinsight/datavisual"
T0 = 1_760_000_000
SECRET = "TOP-SECRET-0xC0FFEE"
TEXT_CAP = 1000


def _app(base: Path, workspace: Path, **overrides: Any) -> Flask:
    settings = settings_for_tests(summary_base_dir=str(base), workspace=str(workspace), reload_interval=0,
                                  **overrides)
    application = create_app(settings, start_background=False)
    application.extensions["mindinsight_clone"].data_manager.reload()
    return application


def _embedding_files(folder: Path, rows: int = 5) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tensors.tsv").write_text("".join(f"{i}\t{i * 2}\n" for i in range(rows)))
    (folder / "metadata.tsv").write_text("".join(f"label{i}\n" for i in range(rows)))


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bad")
    base = root / "base"
    (root / "secret").mkdir()
    (root / "secret" / "tensors.tsv").write_text(f"1\t2\n# {SECRET}\n")
    with TfeventsWriter(base / "texts", timestamp=T0, host="h") as w:
        w.add_text("good", "{'a': {'b': 1}, 'c': [1, 2]}", 1)
        w.add_text("broken", "{'model': {'hidden_size': 4096, 'layers': ", 1)  # cut mid-dict
        w.add_text("call", "{'a': __import__('os').system('touch /tmp/pwned-tb-api')}", 1)  # never evaluated
        w.add_text("bomb", "[" * 100_000 + "]" * 100_000, 1)
        w.add_text("huge", "x" * 300_000, 1)
        w.add_text("plain", "a <b>markdown</b> note", 1)
    with TfeventsWriter(base / "texts_b", timestamp=T0, host="h") as w:
        w.add_text("good", "{'a': {'b': 2}, 'c': [1, 2]}", 1)
        w.add_text("plain", "a <b>markdown</b> note", 1)
    with TfeventsWriter(base / "kinds", timestamp=T0, host="h") as w:
        w.add_pr_curve("pr", [1, 0, 1, 1], [0.9, 0.2, 0.6, 0.4], 0, num_thresholds=11)
        w.add_pr_curve_counts("pr", np.zeros((5, 11)), 1)  # wrong shape: [5, 11]
        w.add_pr_curve("pr", [1, 0], [0.7, 0.1], 2, num_thresholds=11)
        w.add_audio("sound", np.sin(np.arange(800) / 10) * 0.5, 0, sample_rate=8000)
        w.add_audio_bytes("sound", b"ID3\x04 this is an mp3, not a wav", 1, 8000, content_type="audio/wav")
        w.add_audio_bytes("page", b"<script>alert(1)</script>", 0, 8000, content_type="text/html")
        w.add_scalar("loss", 1.5, 0)
    # projector: hostile paths beside a legitimate entry
    run = base / "projector"
    TfeventsWriter(run, timestamp=T0, host="h").close()
    _embedding_files(run / "00000" / "ok")
    os.symlink(root / "secret", run / "escape")
    (run / "projector_config.pbtxt").write_text(
        'embeddings { tensor_name: "ok:00000" tensor_path: "00000/ok/tensors.tsv" '
        'metadata_path: "00000/ok/metadata.tsv" }\n'
        'embeddings { tensor_name: "dotdot" tensor_path: "../../secret/tensors.tsv" }\n'
        f'embeddings {{ tensor_name: "absolute" tensor_path: "{root / "secret" / "tensors.tsv"}" }}\n'
        'embeddings { tensor_name: "symlink" tensor_path: "escape/tensors.tsv" }\n'
        'embeddings { tensor_name: "url" tensor_path: "file:///etc/passwd" }\n'
        'embeddings { tensor_name: "meta" tensor_path: "00000/ok/tensors.tsv" metadata_path: "../../secret/tensors.tsv" }\n'
        'embeddings { tensor_name: "nan" tensor_path: "00000/ok/metadata.tsv" }\n')
    bad = base / "projector_garbled"
    TfeventsWriter(bad, timestamp=T0, host="h").close()
    (bad / "projector_config.pbtxt").write_text("embeddings { tensor_name: ")
    with TfeventsWriter(base / "scalars_too", timestamp=T0, host="h") as w:
        w.add_scalar("loss", 0.5, 1)
    return base


@pytest.fixture(scope="module")
def client(base: Path, tmp_path_factory: pytest.TempPathFactory) -> FlaskClient:
    return _app(base, tmp_path_factory.mktemp("ws"), text_max_chars=TEXT_CAP).test_client()


def _get(client: FlaskClient, path: str, status: int = 200) -> Any:
    response = client.get(API + path)
    assert response.status_code == status, (path, response.get_data(as_text=True)[:300])
    return response.get_json()


def _job(client: FlaskClient, train_id: str) -> dict[str, Any]:
    (job,) = _get(client, f"/train-jobs?train_id={train_id}")["train_jobs"]
    return job


# ------------------------------------------------------------------------------ text
def test_huge_text_is_cut_and_says_so(client: FlaskClient) -> None:
    (item,) = _get(client, "/text?train_id=./texts&tag=huge/text_summary")["texts"]
    assert item["value"] == "x" * TEXT_CAP and item["truncated"] is True and item["length"] == 300_000


def test_text_latest_cuts_long_values_and_says_so(client: FlaskClient, monkeypatch: pytest.MonkeyPatch) -> None:
    latest = {i["tag"]: i for i in _get(client, "/text/latest?train_id=./texts")["texts"]}
    assert latest["huge/text_summary"]["truncated"] is True and latest["huge/text_summary"]["length"] == 300_000
    assert latest["plain/text_summary"]["value"] == "a <b>markdown</b> note" and "length" not in latest["plain/text_summary"]
    from mindinsight_clone.plugins import text
    monkeypatch.setattr(text, "LATEST_PREVIEW_CHARS", 5)  # cut in this answer only: `text?tag=` has it whole
    item = {i["tag"]: i for i in _get(client, "/text/latest?train_id=./texts")["texts"]}["plain/text_summary"]
    assert (item["value"], item["preview"], item["length"]) == ("a <b>", True, len("a <b>markdown</b> note"))
    assert _get(client, "/text/latest?train_id=./nope", 400)["error_code"] == "50545005"


def test_malformed_dict_is_compared_whole_with_a_message(client: FlaskClient) -> None:
    body = client.post(f"{API}/text/compare", json={"train_ids": ["./texts", "./texts_b"]}).get_json()
    keys = {k["key"]: k for k in body["keys"]}
    assert keys["broken"]["values"]["./texts"].startswith("{'model'")
    assert "not a Python literal" in keys["broken"]["errors"]["./texts"]
    assert "not a Python literal" in keys["call"]["errors"]["./texts"] and not Path("/tmp/pwned-tb-api").exists()
    assert "./texts" in keys["bomb"]["errors"]  # nested too deeply for the parser: a message, not a crash
    assert keys["huge"]["truncated"] == ["./texts"]
    # the rest is compared key by key
    assert keys["good.a.b"]["values"] == {"./texts": "1", "./texts_b": "2"} and keys["good.a.b"]["differs"]
    assert keys["good.c"]["values"] == {"./texts": "[1, 2]", "./texts_b": "[1, 2]"} and not keys["good.c"]["differs"]
    assert keys["plain"]["differs"] is False
    assert _get(client, "/text?train_id=./texts&tag=plain/text_summary")["texts"][0]["value"] == "a <b>markdown</b> note"


@pytest.mark.parametrize(("body", "code"), [
    ({}, "50540003"), ({"train_ids": "./texts"}, "50540001"), ({"train_ids": [1]}, "50540001"),
    ({"train_ids": []}, "50540002"), ({"train_ids": [f"./r{i}" for i in range(11)]}, "50540002"),
    ({"train_ids": ["./texts", "./nope"]}, "50545005"), ({"train_ids": ["../etc"]}, "50545005"),
])
def test_compare_refuses_bad_bodies(client: FlaskClient, body: dict[str, Any], code: str) -> None:
    response = client.post(f"{API}/text/compare", json=body)
    assert response.status_code == 400 and response.get_json()["error_code"] == code


# ------------------------------------------------------------------------------ PR curves, audio
def test_pr_tensor_of_the_wrong_shape_is_a_problem_the_rest_is_served(client: FlaskClient) -> None:
    curves = _get(client, "/pr-curves?train_id=./kinds&tag=pr")["curves"]
    assert [c["step"] for c in curves] == [0, 2]
    assert curves[0]["tp"][0] == 3 and curves[1]["tp"][0] == 1  # every positive counts at threshold 0
    job = _job(client, "./kinds")
    messages = [p["message"] for p in job["problems"] if p["kind"] == "bad_payload"]
    assert any("[6, num_thresholds]" in m and "[5, 11]" in m for m in messages)
    assert job["plugins"]["scalar"] == ["loss/scalar"]


def test_audio_that_is_not_a_wav_is_a_problem_the_rest_is_served(client: FlaskClient) -> None:
    meta = _get(client, "/audio/metadata?train_id=./kinds&tag=sound")["metadatas"]
    assert [(m["step"], m["sample_rate"], m["length_frames"]) for m in meta] == [(0, 8000, 800)]
    wav = client.get(f"{API}/audio/single-audio?train_id=./kinds&tag=sound&step=0")
    assert wav.mimetype == "audio/wav" and wav.data[:4] == b"RIFF" and wav.data[8:12] == b"WAVE"
    missing = client.get(f"{API}/audio/single-audio?train_id=./kinds&tag=sound&step=1")
    assert missing.status_code == 400 and missing.get_json()["error_code"] == "50545020"
    assert any("RIFF/WAVE" in p["message"] for p in _job(client, "./kinds")["problems"])
    page = client.get(f"{API}/audio/single-audio?train_id=./kinds&tag=page&step=0")  # never served as HTML
    assert page.mimetype == "application/octet-stream" and page.headers["X-Content-Type-Options"] == "nosniff"


def test_wrong_kind_and_unknown_tags(client: FlaskClient) -> None:
    body = _get(client, "/pr-curves?train_id=./kinds&tag=sound", 400)
    assert body["error_code"] == "50545020" and "no pr_curve data" in body["error_msg"]
    assert _get(client, "/scalars-group?train_id=./kinds&tag=loss", 400)["error_code"] == "5054500E"
    assert _get(client, "/custom-scalars?train_id=./kinds", 400)["error_code"] == "50545020"
    assert _get(client, "/meshes?train_id=./kinds&tag=nope", 400)["error_code"] == "50545020"
    assert _get(client, "/audio/single-audio?train_id=./kinds&tag=sound&step=x", 400)["error_code"] == "50540001"
    assert _get(client, "/text?train_id=./nope&tag=x", 400)["error_code"] == "50545005"
    assert _get(client, "/hparams?train_id=./kinds")["sessions"] == []


# ------------------------------------------------------------------------------ projector paths (CVE #7115 class)
def test_projector_paths_outside_the_run_are_refused(client: FlaskClient) -> None:
    listing = {e["tag"]: e for e in _get(client, "/embeddings?train_id=./projector")["embeddings"]}
    assert listing["ok"]["shape"] == [5, 2] and "error" not in listing["ok"]
    for tag in ("dotdot", "absolute", "symlink", "url"):
        assert "outside the run folder" in listing[tag]["error"], tag
        body = _get(client, f"/embedding?train_id=./projector&tag={tag}", 400)
        assert body["error_code"] == "50545021" and "outside the run folder" in body["error_msg"]
    assert "metadata_path" in listing["meta"]["error"]
    meta = _get(client, "/embedding?train_id=./projector&tag=meta")  # the tensor is fine, the metadata refused
    assert meta["metadata"] == {"columns": [], "rows": []} and "outside the run folder" in meta["warning"]
    assert _get(client, "/embedding?train_id=./projector&tag=nan", 400)["error_code"] == "50545021"
    ok = _get(client, "/embedding?train_id=./projector&tag=ok")
    assert ok["values"] == [[float(i), float(2 * i)] for i in range(5)]
    assert ok["metadata"] == {"columns": ["label"], "rows": [[f"label{i}"] for i in range(5)]}
    problems = [p["message"] for p in _job(client, "./projector")["problems"]]
    assert sum("outside the run folder" in m for m in problems) == 5
    for path in ("/embeddings?train_id=./projector", "/train-jobs?train_id=./projector"):
        assert SECRET not in client.get(API + path).get_data(as_text=True)


def test_projector_config_that_does_not_parse(client: FlaskClient) -> None:
    job = _job(client, "./projector_garbled")
    assert any("does not parse" in p["message"] for p in job["problems"])
    assert _get(client, "/embeddings?train_id=./projector_garbled")["embeddings"] == []
    assert _job(client, "./scalars_too")["is_integrity"] is True  # other runs are not affected


# ------------------------------------------------------------------------------ discovery rules
def _write_group_run(run: Path, torch_layout: bool) -> None:
    with TfeventsWriter(run, timestamp=T0, host="h") as w:
        w.add_scalar("loss", 1.0, 1)
        if not torch_layout:
            w.add_scalars("load/layer 1", {"a": 0.25, "b": 0.75}, 1)  # tensorboardX: folder load/layer 1/a
            w.add_hparams({"lr": 0.1}, {"acc": 0.5}, name="session_x")
    if torch_layout:  # torch.utils.tensorboard: <run>/<main with / as _>_<key>/, tag main unchanged
        for key, value in (("a", 0.25), ("b", 0.75)):
            with TfeventsWriter(run / f"load_layer 1_{key}", timestamp=T0, host="h") as child:
                child.add_scalar("load/layer 1", value, 1)


@pytest.mark.parametrize("torch_layout", [False, True], ids=["tensorboardX", "torch"])
def test_add_scalars_folders_are_never_runs(tmp_path: Path, torch_layout: bool) -> None:
    _write_group_run(tmp_path / "base" / "job" / "rank_0", torch_layout)
    for depth in (1, 2, 3, 6):
        client = _app(tmp_path / "base", tmp_path / f"ws{depth}", max_depth=depth).test_client()
        ids = {j["train_id"] for j in _get(client, "/train-jobs?limit=999")["train_jobs"]}
        if depth == 1:
            assert ids == set()  # job/ itself holds no event file; job/rank_0 is two levels down
            continue
        sessions = set() if torch_layout else {"./job/rank_0/session_x"}
        assert ids == {"./job/rank_0"} | sessions, depth
        group = _get(client, "/scalars-group?train_id=./job/rank_0&tag=load/layer 1")
        assert [(s["name"], [p["value"] for p in s["metadatas"]]) for s in group["series"]] == \
            [("a", [0.25]), ("b", [0.75])]
    # the run as the base dir itself: its sub-folders are still not runs
    client = _app(tmp_path / "base" / "job" / "rank_0", tmp_path / "ws_self", max_depth=4).test_client()
    ids = {j["train_id"] for j in _get(client, "/train-jobs?limit=999")["train_jobs"]}
    assert ids == {"./"} | (set() if torch_layout else {"./session_x"})


def test_hparams_sessions_are_runs_beyond_max_depth(tmp_path: Path) -> None:
    require_shared(TB_FIXTURES)
    client = _app(TB_FIXTURES, tmp_path / "ws", max_depth=1).test_client()
    ids = {j["train_id"] for j in _get(client, "/train-jobs?limit=999")["train_jobs"]}
    sessions = {t for t in ids if t.startswith("./kind_hparams/")}
    assert len(sessions) == 3
    assert {s["train_id"] for s in _get(client, "/hparams?train_id=./kind_hparams")["sessions"]} == sessions
    assert not any("mindformers" in t for t in ids)  # job/rank_N are two levels down


def test_text_tags_have_their_own_limit(tmp_path: Path) -> None:
    """Megatron writes one text tag per argument: they never evict scalars (max_tags_per_run)."""
    with TfeventsWriter(tmp_path / "base" / "run", timestamp=T0, host="h") as w:
        w.add_scalar("lm loss", 2.0, 1)
        for i in range(40):
            w.add_text(f"arg_{i:02d}", str(i), 0)
    client = _app(tmp_path / "base", tmp_path / "ws", max_tags_per_run=5, max_text_tags=30).test_client()
    job = _job(client, "./run")
    assert job["plugins"]["scalar"] == ["lm loss/scalar"] and len(job["plugins"]["text"]) == 30
    assert job["dropped_tags"] == 10  # the oldest text tags, as the limit says


def test_undescribed_tensor_of_a_known_tag_name_yields_nothing_harmful(tmp_path: Path) -> None:
    """A text-looking tensor without metadata is read as text (TF2 layout); a float tensor of unknown shape is
    skipped; neither fails the run."""
    run = tmp_path / "base" / "run"
    run.mkdir(parents=True)
    events = [tb_event_pb2.Event(wall_time=T0, file_version="brain.Event:2")]
    text = tb_event_pb2.Event(wall_time=T0, step=3)
    value = text.summary.value.add(tag="note")
    value.tensor.dtype = tb_types_pb2.DT_STRING
    value.tensor.string_val.append(b"written by hand")
    odd = tb_event_pb2.Event(wall_time=T0, step=3)
    value = odd.summary.value.add(tag="odd")
    value.tensor.dtype = tb_types_pb2.DT_FLOAT
    value.tensor.float_val.extend([1.0] * 8)
    for size in (2, 2, 2):
        value.tensor.tensor_shape.dim.add(size=size)
    events += [text, odd]
    (run / f"events.out.tfevents.{T0}.h").write_bytes(b"".join(frame_record(e.SerializeToString()) for e in events))
    client = _app(tmp_path / "base", tmp_path / "ws").test_client()
    assert _get(client, "/text?train_id=./run&tag=note")["texts"][0]["value"] == "written by hand"
    assert _job(client, "./run")["is_integrity"] is True


def test_add_scalars_folders_that_appear_later_join_their_run(tmp_path: Path) -> None:
    """A key's folder is created at the first add_scalars call, mid-training: the next reload reads it into its
    run, and later points of it are read incrementally."""
    writer = TfeventsWriter(tmp_path / "base" / "run", timestamp=T0, host="h")
    writer.add_scalar("loss", 1.0, 1)
    writer.flush()
    app = _app(tmp_path / "base", tmp_path / "ws", max_depth=4)
    client = app.test_client()
    assert "scalar_groups" not in _get(client, "/plugins?train_id=./run")
    writer.add_scalars("load", {"e0": 0.25, "e1": 0.75}, 5)
    writer.flush()
    manager = app.extensions["mindinsight_clone"].data_manager
    manager.reload()
    assert _get(client, "/plugins?train_id=./run")["scalar_groups"] == {"load": ["e0", "e1"]}
    writer.add_scalars("load", {"e0": 0.5, "e1": 0.5}, 10)
    writer.close()
    manager.reload()
    group = _get(client, "/scalars-group?train_id=./run&tag=load")
    assert [[(p["step"], p["value"]) for p in s["metadatas"]] for s in group["series"]] == \
        [[(5, 0.25), (10, 0.5)], [(5, 0.75), (10, 0.5)]]
    assert {j["train_id"] for j in _get(client, "/train-jobs")["train_jobs"]} == {"./run"}
    assert _job(client, "./run")["is_integrity"] is True
