"""TensorBoard event files served through create_app like MindSpore's: same endpoints, same tag names.

Runs: `tbx` (tensorboardX), `tf2` (TF2-style tensors, our protos), `mixed` (MindSpore summary file written
by our writer + a tensorboardX file), and damaged tfevents files.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from mindinsight_clone.summary.writer import SummaryWriter
from tests.unit.ingest.tfevents_files import Written, tensorboardx_run, tf2_run, write_payloads

API = "/v1/mindinsight/datavisual"


@pytest.fixture
def written(tmp_path: Path) -> dict[str, Written]:
    base = tmp_path / "base"
    out = {"tbx": tensorboardx_run(base / "tbx", range(0, 120)), "tf2": tf2_run(base / "tf2", range(1, 31))}
    with SummaryWriter(base / "mixed", timestamp=1_600_000_000) as writer:
        for step in range(1, 11):
            writer.add_scalar("ms_loss", float(step), step=step)
    out["mixed"] = tensorboardx_run(base / "mixed", range(0, 10), scalar_tags=("tb_loss",), text=False)
    return out


@pytest.fixture
def app(tmp_path: Path, written: dict[str, Written]) -> Flask:
    settings = settings_for_tests(summary_base_dir=str(tmp_path / "base"), workspace=str(tmp_path / "ws"),
                                  reload_interval=0, scalar_samples=1000)
    application = create_app(settings, start_background=False)
    application.extensions["mindinsight_clone"].data_manager.reload()
    return application


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def _job(client: FlaskClient, train_id: str) -> dict:
    jobs = client.get(f"{API}/train-jobs?train_id={train_id}").get_json()["train_jobs"]
    assert len(jobs) == 1
    return jobs[0]


def _steps_values(client: FlaskClient, train_id: str, tag: str) -> list[tuple[int, float]]:
    body = client.get(f"{API}/scalar/metadata?train_id={train_id}&tag={tag}").get_json()
    return [(p["step"], p["value"]) for p in body["metadatas"]]


def test_runs_listed_with_mindinsight_tag_names(client: FlaskClient) -> None:
    body = client.get(f"{API}/train-jobs").get_json()
    assert {j["train_id"] for j in body["train_jobs"]} == {"./tbx", "./tf2", "./mixed"}
    tbx = _job(client, "./tbx")
    assert tbx["cache_status"] == "CACHED" and tbx["is_integrity"] is True and tbx["summary_files"] == 1
    assert tbx["plugins"]["scalar"] == ["acc/scalar", "loss/scalar"]
    assert tbx["plugins"]["image"] == ["input/image"] and tbx["plugins"]["histogram"] == ["weights/histogram"]
    assert tbx["text_tags"] == ["notes/text_summary"]
    tf2 = _job(client, "./tf2")
    assert tf2["plugins"]["scalar"] == ["epoch_loss/scalar"]
    assert tf2["plugins"]["image"] == ["samples/1/image", "samples/image"]
    assert tf2["plugins"]["histogram"] == ["dense/kernel/histogram"] and tf2["text_tags"] == ["config"]
    assert "text_tags" not in _job(client, "./mixed")
    single = client.get(f"{API}/single-job?train_id=./tbx&plugin_name=scalar").get_json()
    assert single["train_jobs"][0]["tags"] == ["acc/scalar", "loss/scalar"]


def test_every_scalar_step_exact(client: FlaskClient, written: dict[str, Written]) -> None:
    for run in ("tbx", "tf2"):
        for disk_tag, expected in written[run].scalars.items():
            assert _steps_values(client, f"./{run}", f"{disk_tag}/scalar") == expected
    multi = client.get(f"{API}/scalars?train_id=./tbx&train_id=./tf2&tag=loss/scalar&tag=epoch_loss/scalar")
    assert [(s["train_id"], s["tag"]) for s in multi.get_json()["scalars"]] == [
        ("./tbx", "loss/scalar"), ("./tf2", "epoch_loss/scalar")]


def test_images_served_as_written(client: FlaskClient, written: dict[str, Written]) -> None:
    meta = client.get(f"{API}/image/metadata?train_id=./tf2&tag=samples/1/image").get_json()["metadatas"]
    assert len(meta) == 10 and meta[-1]["step"] == 30 and (meta[-1]["width"], meta[-1]["height"]) == (5, 3)
    for tag in ("samples/image", "samples/1/image"):
        resp = client.get(f"{API}/image/single-image?train_id=./tf2&tag={tag}&step=30")
        assert resp.status_code == 200 and resp.mimetype == "image/png"
        assert resp.data == dict(written["tf2"].images[tag])[30]
    meta = client.get(f"{API}/image/metadata?train_id=./tbx&tag=input/image").get_json()["metadatas"]
    assert meta[-1]["step"] == 115 and (meta[-1]["width"], meta[-1]["height"]) == (6, 4)
    resp = client.get(f"{API}/image/single-image?train_id=./tbx&tag=input/image&step=-1")
    assert resp.status_code == 200 and resp.mimetype == "image/png" and resp.data.startswith(b"\x89PNG")


def test_histograms_present_and_sampled_like_mindspore(app: Flask, client: FlaskClient) -> None:
    body = client.get(f"{API}/histograms?train_id=./tbx&tag=weights/histogram").get_json()
    steps = [h["step"] for h in body["histograms"]]
    assert len(steps) == 50 and steps[-1] == 118  # 60 written, histogram_samples=50 kept, newest kept
    cache = app.extensions["mindinsight_clone"].data_manager.run_cache("./tbx")
    assert all(s.value.total == 200 for s in cache.samples("histogram", "weights/histogram"))
    body = client.get(f"{API}/histograms?train_id=./tf2&tag=dense/kernel/histogram").get_json()
    assert [h["step"] for h in body["histograms"]] == list(range(1, 31))
    assert all(h["buckets"] for h in body["histograms"])


def test_mixed_run_serves_both_formats(client: FlaskClient, written: dict[str, Written]) -> None:
    job = _job(client, "./mixed")
    assert job["summary_files"] == 2 and job["is_integrity"] is True
    assert job["plugins"]["scalar"] == ["ms_loss/scalar", "tb_loss/scalar"]
    assert _steps_values(client, "./mixed", "ms_loss/scalar") == [(s, float(s)) for s in range(1, 11)]
    assert _steps_values(client, "./mixed", "tb_loss/scalar") == written["mixed"].scalars["tb_loss"]


def _frame_offsets(data: bytes) -> list[int]:
    offsets, pos = [], 0
    while pos + 12 <= len(data):
        offsets.append(pos)
        (length,) = struct.unpack_from("<Q", data, pos)
        pos += 16 + length
    return offsets


def test_damaged_tfevents_files_give_problems_not_crashes(app: Flask, client: FlaskClient, tmp_path: Path,
                                                          written: dict[str, Written]) -> None:
    base = tmp_path / "base"
    (path,) = written["tbx"].files
    data = bytearray(path.read_bytes())
    offsets = _frame_offsets(bytes(data))
    data[offsets[10] + 14] ^= 0xFF  # a payload byte of record 10: payload CRC mismatch, that record only
    broken = base / "broken"
    broken.mkdir()
    (broken / path.name).write_bytes(bytes(data[: offsets[-1] + 5]))  # and cut inside the last record
    garbage = base / "garbage"
    write_payloads(garbage / "events.out.tfevents.1700000000.x", [b"\xff\x00 not an event", b"\x0a"])
    (garbage / "events.out.tfevents.1700000001.y").write_bytes(np.random.default_rng(0).bytes(5000))
    dm = app.extensions["mindinsight_clone"].data_manager
    dm.cache_runs(["./broken", "./garbage"])
    dm.reload()
    job = _job(client, "./broken")
    assert job["cache_status"] == "CACHED" and job["is_integrity"] is False
    kinds = sorted(p["kind"] for p in job["problems"])
    assert kinds == ["payload_crc", "truncated"]
    served = _steps_values(client, "./broken", "loss/scalar")
    assert 100 < len(served) < 120 and set(served) <= set(written["tbx"].scalars["loss"])
    job = _job(client, "./garbage")
    assert job["is_integrity"] is False and {p["kind"] for p in job["problems"]} >= {"bad_payload"}
    assert client.get(f"{API}/train-jobs").status_code == 200  # the server keeps serving
    assert _steps_values(client, "./tbx", "loss/scalar") == written["tbx"].scalars["loss"]


def test_growing_tfevents_file_is_read_incrementally(app: Flask, client: FlaskClient, tmp_path: Path) -> None:
    from mindinsight_clone.proto import tb_event_pb2

    (path,) = sorted((tmp_path / "base" / "tf2").glob("events.out.tfevents.*"))
    before = _steps_values(client, "./tf2", "epoch_loss/scalar")
    ev = tb_event_pb2.Event(wall_time=1.0, step=31)
    ev.summary.value.add(tag="epoch_loss", simple_value=0.75)
    write_payloads(path, [ev.SerializeToString()], mode="ab")
    app.extensions["mindinsight_clone"].data_manager.reload()
    assert _steps_values(client, "./tf2", "epoch_loss/scalar") == [*before, (31, 0.75)]


def test_text_tags_follow_the_files(app: Flask, client: FlaskClient, written: dict[str, Written]) -> None:
    assert _job(client, "./tf2")["text_tags"] == ["config"]
    (path,) = written["tf2"].files
    other = path.with_name("events.out.tfevents.1700000200.testhost.123.0.v2")
    path.rename(other)  # the old file is gone, a new one holds the same records
    app.extensions["mindinsight_clone"].data_manager.reload()
    job = _job(client, "./tf2")
    assert job["text_tags"] == ["config"] and job["is_integrity"] is True
    from mindinsight_clone.proto import tb_event_pb2

    ev = tb_event_pb2.Event(wall_time=1.0, step=1)
    ev.summary.value.add(tag="only", simple_value=1.0)
    write_payloads(other.with_name("events.out.tfevents.1700000300.h"), [ev.SerializeToString()])
    other.unlink()  # no file with text is left
    app.extensions["mindinsight_clone"].data_manager.reload()
    job = _job(client, "./tf2")
    assert "text_tags" not in job and job["plugins"]["scalar"] == ["only/scalar"]


def test_hostile_file_name_timestamps_do_not_break_the_listing(app: Flask, client: FlaskClient,
                                                               tmp_path: Path) -> None:
    from mindinsight_clone.proto import tb_event_pb2

    ev = tb_event_pb2.Event(wall_time=1.0, step=1)
    ev.summary.value.add(tag="x", simple_value=1.0)
    write_payloads(tmp_path / "base" / "far_future" / f"events.out.tfevents.{10**20}.h", [ev.SerializeToString()])
    app.extensions["mindinsight_clone"].data_manager.reload()
    resp = client.get(f"{API}/train-jobs?limit=999")
    assert resp.status_code == 200
    job = next(j for j in resp.get_json()["train_jobs"] if j["train_id"] == "./far_future")
    assert job["create_time"] == "" and job["update_time"]  # not representable: empty, the rest still served
    assert len(resp.get_json()["train_jobs"]) == 4
