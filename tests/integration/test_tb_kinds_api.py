"""The TensorBoard kinds over ../shared/fixtures/tensorboard (real tensorboardX / torch / TF2 files, read in place),
every value checked against its EXPECTED.json: text and the config diff, PR curves, hparams sessions, audio, the
projector, add_scalars groups, custom scalars, meshes, the `vs samples` twins, and the scalars of the same runs.

One app for the module (`--max-depth 2`, so the MindFormers ranks `job/rank_N` are runs). The read-only tests
here run again over S3 in test_remote_tfevents.py (its `app` fixture serves the same folder from the bucket).
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import math
from typing import Any

import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.conftest import SHARED, require_shared

API = "/v1/mindinsight/datavisual"
TB_FIXTURES = SHARED / "fixtures" / "tensorboard"
DEPTH = 2
# TensorBoard's plugin names (EXPECTED tensorboard_view) -> ours
KINDS = {"text": "text", "pr_curves": "pr_curve", "audio": "audio", "mesh": "mesh", "custom_scalars": "custom_scalars",
         "hparams": "hparams"}


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    require_shared(TB_FIXTURES)
    data: dict[str, Any] = json.loads((TB_FIXTURES / "EXPECTED.json").read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory, expected: dict[str, Any]) -> Flask:
    settings = settings_for_tests(summary_base_dir=str(TB_FIXTURES), workspace=str(tmp_path_factory.mktemp("ws")),
                                  reload_interval=0, max_depth=DEPTH)
    application = create_app(settings, start_background=False)
    application.extensions["mindinsight_clone"].data_manager.reload()
    return application


@pytest.fixture(scope="module")
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def _get(client: FlaskClient, path: str) -> Any:
    response = client.get(API + path)
    assert response.status_code == 200, (path, response.get_data(as_text=True)[:300])
    return response.get_json()


def _q(text: str) -> str:
    from urllib.parse import quote
    return quote(text, safe="")


def _tid(run: str) -> str:
    return "./" + run


def _add_scalars_children(expected: dict[str, Any]) -> set[str]:
    return set(expected["groups"]["mindformers"]["add_scalars"]["child_runs"])


# ------------------------------------------------------------------------------ runs and plugins
def test_runs_and_plugin_tags_as_tensorboard_lists_them(client: FlaskClient, expected: dict[str, Any]) -> None:
    view = expected["tensorboard_view"]["runs"]
    children = _add_scalars_children(expected)
    wanted = {run for run in view if run not in children and run.count("/") < DEPTH}
    body = _get(client, "/train-jobs?limit=999")
    assert {j["train_id"] for j in body["train_jobs"]} == {_tid(r) for r in wanted}
    for run in wanted:
        plugins = _get(client, f"/plugins?train_id={_q(_tid(run))}")["plugins"]
        for tb_name, ours in KINDS.items():
            assert plugins.get(ours, []) == sorted(view[run].get(tb_name, [])), (run, ours)
        own_scalars = {t + "/scalar" for t in view[run].get("scalars", [])}
        members = {f"{main}/{key}/scalar" for main, keys in
                   _get(client, f"/plugins?train_id={_q(_tid(run))}").get("scalar_groups", {}).items() for key in keys}
        assert set(plugins["scalar"]) == own_scalars | members, run
        assert plugins.get("embedding", []) == sorted(expected["runs"][run]["tags"].get("embeddings", [])), run
        for name in ("image", "scalar", "graph", "optimized_graph", "histogram", "tensor", "loss_landscape"):
            assert name in plugins  # MindInsight's seven are always there


def test_every_scalar_series_as_written(client: FlaskClient, expected: dict[str, Any]) -> None:
    """The runs' own scalars (vs samples twins included) are unchanged by the new kinds: count, steps, extremes."""
    for run, info in expected["runs"].items():
        if run in _add_scalars_children(expected) or run.count("/") >= DEPTH:
            continue
        for tag, series in info.get("scalars", {}).items():
            points = _get(client, f"/scalar/metadata?train_id={_q(_tid(run))}&tag={_q(tag + '/scalar')}")["metadatas"]
            _check_series(points, series, f"{run}:{tag}")


def _check_series(points: list[dict[str, Any]], series: dict[str, Any], where: str) -> None:
    steps = [p["step"] for p in points]
    spec = series["steps"]
    assert len(points) == series["count"] == spec["count"], where
    assert steps[0] == spec["first"] and steps[-1] == spec["last"], where
    if "stride" in spec:
        assert steps == list(range(spec["first"], spec["last"] + 1, spec["stride"])), where
    else:
        assert steps == spec["list"], where
    values = [p["value"] for p in points]
    assert (points[0]["step"], values[0], points[0]["wall_time"]) == \
        (series["first"]["step"], series["first"]["value"], series["first"]["wall_time"]), where
    assert (points[-1]["step"], values[-1], points[-1]["wall_time"]) == \
        (series["last"]["step"], series["last"]["value"], series["last"]["wall_time"]), where
    finite = [v for v in values if v is not None and math.isfinite(v)]
    assert (min(finite), max(finite)) == (series["min"], series["max"]), where
    assert math.fsum(finite) == pytest.approx(series["sum"], rel=1e-12), where


# ------------------------------------------------------------------------------ text and config diff
def test_every_text_value_as_written(client: FlaskClient, expected: dict[str, Any]) -> None:
    for run, info in expected["runs"].items():
        for tag, text in info.get("text", {}).items():
            texts = _get(client, f"/text?train_id={_q(_tid(run))}&tag={_q(tag)}")["texts"]
            assert [t["step"] for t in texts] == text["steps"], (run, tag)
            assert [t["value"] for t in texts] == text["values"], (run, tag)
            assert not any("truncated" in t for t in texts)


def test_text_latest_is_the_newest_text_of_every_tag(client: FlaskClient, expected: dict[str, Any]) -> None:
    """`text/latest` (the Text page's one request): per text tag its newest value and step, and how many steps."""
    for run, info in expected["runs"].items():
        if run.count("/") >= DEPTH or not info.get("text"):
            continue
        items = _get(client, f"/text/latest?train_id={_q(_tid(run))}")["texts"]
        assert [i["tag"] for i in items] == sorted(info["text"]), run
        for item in items:
            text = info["text"][item["tag"]]
            assert (item["step"], item["value"], item["steps"]) == (text["steps"][-1], text["values"][-1],
                                                                    len(text["steps"])), (run, item["tag"])
            assert "preview" not in item and "truncated" not in item


def test_megatron_diff_is_the_five_arguments(client: FlaskClient, expected: dict[str, Any]) -> None:
    group = expected["groups"]["megatron"]
    diff = group["args_diff"]
    a, b = (_tid(r) for r in diff["between"])
    body = client.post(f"{API}/text/compare", json={"train_ids": [a, b]}).get_json()
    differing = {k["key"]: k["values"] for k in body["keys"] if k["differs"]}
    assert body["differing"] == diff["count"] == 5
    assert differing == {
        **{key: {a: first, b: second} for key, (first, second) in diff["changed"].items()},
        **{key: {a: value, b: None} for key, value in diff["only_in_first"].items()},
        **{key: {a: None, b: value} for key, value in diff["only_in_second"].items()},
    }
    same = {k["key"]: k["values"][a] for k in body["keys"] if not k["differs"]}
    args_a = group["args"][diff["between"][0]]
    assert same == {k: v for k, v in args_a.items() if k not in differing}  # the other 145+ arguments, one tag each
    assert len(body["keys"]) == len(set(args_a) | set(group["args"][diff["between"][1]]))


def _literal_leaves(prefix: str, value: Any, out: dict[str, str]) -> None:
    """Expected dotted keys of a parsed str(dict), computed here from EXPECTED's text (dicts by key, lists of
    containers by index, other values as str())."""
    if isinstance(value, dict) and value:
        for k, v in value.items():
            _literal_leaves(f"{prefix}.{k}", v, out)
    elif isinstance(value, list) and any(isinstance(v, dict | list) for v in value):
        for i, v in enumerate(value):
            _literal_leaves(f"{prefix}[{i}]", v, out)
    else:
        out[prefix] = str(value)


def test_mindformers_config_compared_key_by_key(client: FlaskClient, expected: dict[str, Any]) -> None:
    ranks = expected["groups"]["mindformers"]["ranks"]
    leaves: dict[str, dict[str, str]] = {}
    for run in ranks:
        leaves[run] = {}
        for tag, text in expected["runs"][run]["text"].items():
            raw = text["values"][-1]
            key = tag.removesuffix("/text_summary")
            if raw.startswith(("{", "[")):
                _literal_leaves(key, ast.literal_eval(raw), leaves[run])
            else:
                leaves[run][key] = raw
    body = client.post(f"{API}/text/compare", json={"train_ids": [_tid(r) for r in ranks]}).get_json()
    got = {k["key"]: k["values"] for k in body["keys"]}
    assert set(got) == set(leaves[ranks[0]]) | set(leaves[ranks[1]])
    assert got["model.model_config.hidden_size"] == {_tid(r): "4096" for r in ranks}
    for key, values in got.items():
        assert values == {_tid(r): leaves[r].get(key) for r in ranks}, key
    differing = {k["key"] for k in body["keys"] if k["differs"]}
    assert differing == {k for k in got if leaves[ranks[0]].get(k) != leaves[ranks[1]].get(k)}
    assert differing == {"context.device_id", "local_rank"}  # the rank is all that differs between the ranks


# ------------------------------------------------------------------------------ PR curves
def test_pr_counts_at_a_threshold(client: FlaskClient, expected: dict[str, Any]) -> None:
    for tag, info in expected["runs"]["kind_pr_curve"]["pr_curves"].items():
        curves = _get(client, f"/pr-curves?train_id=./kind_pr_curve&tag={_q(tag)}")["curves"]
        assert [c["step"] for c in curves] == info["steps"]
        at = info["at_threshold"]
        for curve in curves:
            assert len(curve["thresholds"]) == info["num_thresholds"]
            assert curve["thresholds"][at["index"]] == pytest.approx(at["threshold"], abs=1e-12)
            want = at["per_step"][str(curve["step"])]
            got = {k: curve[k][at["index"]] for k in ("tp", "fp", "tn", "fn", "precision", "recall")}
            assert got == {k: want[k] for k in got}, (tag, curve["step"])
            assert got["tp"] + got["fn"] == want["positives"] and got["fp"] + got["tn"] == want["negatives"]


# ------------------------------------------------------------------------------ hparams
def test_hparams_sessions_of_the_parent_run(client: FlaskClient, expected: dict[str, Any]) -> None:
    group = expected["groups"]["hparams"]
    body = _get(client, f"/hparams?train_id={_q(_tid(group['parent_run']))}")
    assert [s["train_id"] for s in body["sessions"]] == sorted(_tid(s["run"]) for s in group["sessions"])
    by_id = {s["train_id"]: s for s in body["sessions"]}
    for session in group["sessions"]:
        got = by_id[_tid(session["run"])]
        assert got["hparams"] == session["hparams_written"]  # 32 == 32.0: ints are written as FLOAT64
        assert got["hparam_types"] == session["hparam_types"]
        assert got["metrics"] == session["metrics"] and got["status"] == session["status"]
    assert body["hparams"] == sorted(group["sessions"][0]["hparams_written"])
    assert body["metrics"] == sorted(group["sessions"][0]["metrics"])
    plugins = _get(client, f"/plugins?train_id={_q(_tid(group['parent_run']))}")
    assert plugins["hparams_sessions"] == sorted(_tid(s["run"]) for s in group["sessions"])
    one = group["sessions"][0]["run"]
    assert [s["train_id"] for s in _get(client, f"/hparams?train_id={_q(_tid(one))}")["sessions"]] == [_tid(one)]


def test_hparams_sessions_for_the_lineage_page(client: FlaskClient, expected: dict[str, Any]) -> None:
    group = expected["groups"]["hparams"]
    body = _get(client, "/hparams/sessions")
    assert len(body["sessions"]) == len(body["object"]) == len(group["sessions"])
    rows = {o["summary_dir"]: o["model_lineage"] for o in body["object"]}
    for session in group["sessions"]:
        assert rows[_tid(session["run"])] == {"metric": session["metrics"], "user_defined": session["hparams_written"]}
    (target,) = body["importance"]["targets"]
    assert target["name"] == "[M]hparam/accuracy"
    lr = [s["hparams_written"]["lr"] for s in group["sessions"]]
    acc = [s["metrics"]["hparam/accuracy"] for s in group["sessions"]]
    importance = {h["name"]: h["importance"] for h in target["hyper_parameters"]}
    assert importance["[U]lr"] == pytest.approx(abs(np.corrcoef(lr, acc)[0, 1]), rel=1e-9)


# ------------------------------------------------------------------------------ audio
def test_audio_metadata_and_wav_bytes(client: FlaskClient, expected: dict[str, Any]) -> None:
    for tag, info in expected["runs"]["kind_audio"]["audio"].items():
        meta = _get(client, f"/audio/metadata?train_id=./kind_audio&tag={_q(tag)}")["metadatas"]
        assert [m["step"] for m in meta] == info["steps"]
        for m in meta:
            assert (m["sample_rate"], m["length_frames"], m["content_type"], m["num_channels"]) == \
                (info["sample_rate"], info["length_frames"], info["content_type"], info["num_channels"])
            response = client.get(f"{API}/audio/single-audio?train_id=./kind_audio&tag={_q(tag)}&step={m['step']}")
            assert response.status_code == 200 and response.mimetype == "audio/wav"
            assert len(response.data) == info["wav_bytes"]
            assert hashlib.sha256(response.data).hexdigest() == info["encoded_sha256"][str(m["step"])]


# ------------------------------------------------------------------------------ projector
def test_embedding_shape_rows_and_sprite(client: FlaskClient, expected: dict[str, Any]) -> None:
    (info,) = expected["runs"]["kind_embedding"]["embeddings"].values()
    (item,) = _get(client, "/embeddings?train_id=./kind_embedding")["embeddings"]
    assert (item["tag"], item["tensor_name"], item["shape"]) == (info["tag"], info["tensor_name"], info["shape"])
    assert item["metadata_columns"] == info["metadata_columns"] and "error" not in item
    body = _get(client, f"/embedding?train_id=./kind_embedding&tag={_q(info['tag'])}")
    values = np.array(body["values"], dtype=np.float32)  # float32 as tensorboardX wrote them (str(float32.item()))
    assert body["shape"] == info["shape"] and list(values.shape) == info["shape"] and "truncated" not in body
    assert values[0].tolist() == info["first_row"]
    np.testing.assert_allclose(values.astype(np.float64).sum(axis=0), info["column_sums"], rtol=1e-9)
    assert body["metadata"]["columns"] == info["metadata_columns"]
    rows = body["metadata"]["rows"]
    assert len(rows) == info["metadata_rows"] and rows[0] == info["metadata_first_row"]
    labels = [r[0] for r in rows]
    assert {label: labels.count(label) for label in info["label_counts"]} == info["label_counts"]
    assert body["sprite"] == {"single_image_dim": info["sprite"]["single_image_dim"]}
    sprite = client.get(f"{API}/embedding/sprite?train_id=./kind_embedding&tag={_q(info['tag'])}")
    assert sprite.status_code == 200 and sprite.mimetype == "image/png"
    from PIL import Image
    image = Image.open(io.BytesIO(sprite.data))
    assert list(image.size) == info["sprite"]["png_size"] and image.mode == info["sprite"]["mode"]
    assert sprite.data == (TB_FIXTURES / info["sprite"]["path"]).read_bytes()


# ------------------------------------------------------------------------------ add_scalars groups
def test_add_scalars_group_has_its_eight_series(client: FlaskClient, expected: dict[str, Any]) -> None:
    spec = expected["groups"]["mindformers"]["add_scalars"]
    for rank in expected["groups"]["mindformers"]["ranks"]:
        plugins = _get(client, f"/plugins?train_id={_q(_tid(rank))}")
        assert plugins["scalar_groups"] == {main: spec["children"] for main in spec["main_tags"]}
        for main in spec["main_tags"]:
            body = _get(client, f"/scalars-group?train_id={_q(_tid(rank))}&tag={_q(main)}")
            assert body["tag"] == main and [s["name"] for s in body["series"]] == spec["children"]
            for series in body["series"]:
                child = f"{rank}/{main}/{series['name']}"
                assert series["tag"] == f"{main}/{series['name']}/scalar"
                _check_series(series["metadatas"], expected["runs"][child]["scalars"][main], child)
            per_step = np.array([[p["value"] for p in s["metadatas"]] for s in body["series"]])
            np.testing.assert_allclose(per_step.sum(axis=0), 1.0, atol=1e-5)  # load fractions of one step


def test_samples_twins_named(client: FlaskClient, expected: dict[str, Any]) -> None:
    mf = expected["groups"]["mindformers"]
    on_disk = mf["tag_on_disk"]
    want = {on_disk[t.removesuffix(" vs samples")] + "/scalar": on_disk[t] + "/scalar"
            for t in mf["scalar_emit_order"] if t.endswith(" vs samples")}
    assert _get(client, f"/plugins?train_id={_q(_tid(mf['ranks'][0]))}")["samples_twins"] == want
    run = expected["groups"]["megatron"]["runs"][0]
    tags = expected["runs"][run]["tags"]["scalars"]
    want = {t + "/scalar": t + " vs samples/scalar" for t in tags if t + " vs samples" in tags}
    assert "lm loss/scalar" in want and "throughput/scalar" not in want
    job = _get(client, f"/train-jobs?train_id={_q(_tid(run))}")["train_jobs"][0]
    assert job["samples_twins"] == want


# ------------------------------------------------------------------------------ custom scalars, meshes
def test_custom_scalars_layout(client: FlaskClient, expected: dict[str, Any]) -> None:
    (layout,) = expected["runs"]["kind_custom_scalars"]["custom_scalars"].values()
    body = _get(client, "/custom-scalars?train_id=./kind_custom_scalars")
    assert body["tags"] == list(expected["runs"]["kind_custom_scalars"]["custom_scalars"])
    assert [c["title"] for c in body["categories"]] == [c["title"] for c in layout["categories"]]
    for got, want in zip(body["categories"], layout["categories"], strict=True):
        for chart, spec in zip(got["charts"], want["charts"], strict=True):
            assert chart["title"] == spec["title"]
            if spec["kind"] == "multiline":
                assert chart["multiline"]["tags"] == spec["tags"]
            else:
                assert chart["margin"]["series"] == [spec["series"]]
                assert chart["matched"] == [spec["series"][k] + "/scalar" for k in ("value", "lower", "upper")]


def test_mesh_components(client: FlaskClient, expected: dict[str, Any]) -> None:
    meshes = expected["runs"]["kind_mesh"]["mesh"]
    parts = {info["content_type"]: tag for tag, info in meshes.items()}
    for tag in meshes:
        body = _get(client, f"/meshes?train_id=./kind_mesh&tag={_q(tag)}")
        assert body["components"] == {"vertices": parts["VERTEX"], "faces": parts["FACE"], "colors": parts["COLOR"]}
        assert body["config"] == json.loads(meshes[tag]["json_config"])
    names = {"VERTEX": "vertices", "FACE": "faces", "COLOR": "colors"}
    for info in meshes.values():
        component = names[info["content_type"]]
        assert body["name"] == info["mesh_name"] and [m["step"] for m in body["meshes"]] == info["steps"]
        for m in body["meshes"]:
            assert [len(m[component]), len(m[component][0])] == info["shape"][1:]
        assert body["meshes"][0][component][0] == info["first_values"]
        if info["scales_per_step"]:
            first, second = (np.array(m[component]) for m in body["meshes"])
            np.testing.assert_allclose(second, first * info["scales_per_step"][1] / info["scales_per_step"][0])
