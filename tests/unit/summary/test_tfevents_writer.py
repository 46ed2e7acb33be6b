"""TfeventsWriter writes what tensorboardX writes: checked with tensorboardX's own protos and its compute_curve
(an independent reader and an independent PR computation; tensorboardX is a dev dependency only)."""

from __future__ import annotations

import io
import wave
from pathlib import Path

import numpy as np
import pytest
from google.protobuf import text_format

from mindinsight_clone.ingest.record_reader import read_all
from mindinsight_clone.proto import tb_projector_pb2
from mindinsight_clone.summary.tfevents_writer import TfeventsWriter, pr_counts

tbx_event = pytest.importorskip("tensorboardX.proto.event_pb2", reason="tensorboardX (dev extra) reads them back")


def _events(path: Path) -> list:
    out = []
    for payload in read_all(path).records:
        event = tbx_event.Event()
        event.ParseFromString(payload)
        out.append(event)
    return out


def test_pr_counts_are_tensorboardx_compute_curve() -> None:
    from tensorboardX.summary import compute_curve

    rng = np.random.default_rng(4)
    labels = rng.integers(0, 2, 300)
    predictions = rng.random(300)
    np.testing.assert_allclose(pr_counts(labels, predictions, 37), compute_curve(labels, predictions, 37))


def test_events_read_back_with_tensorboardx_protos(tmp_path: Path) -> None:
    from tensorboardX.proto import plugin_hparams_pb2, plugin_mesh_pb2, plugin_pr_curve_pb2

    with TfeventsWriter(tmp_path / "run", timestamp=1_700_000_000, host="h") as w:
        w.add_scalar("loss", 0.5, 3, wall_time=1_700_000_003.5)
        w.add_text("lr", "0.01", 0)
        w.add_text("lr", "0.02", 1)
        w.add_pr_curve("pr", [1, 0, 1], [0.9, 0.1, 0.4], 2, num_thresholds=5)
        w.add_audio("clip", np.zeros(80), 4, sample_rate=8000)
        w.add_mesh("cube", np.ones((8, 3)), 5, faces=np.zeros((12, 3)), config={"camera": {"fov": 75}})
        w.add_scalars("load", {"e0": 0.25, "e1": 0.75}, 6)
        w.add_hparams({"lr": 0.1, "opt": "adam", "fused": True}, {"acc": 0.9}, name="s1")
    (version, scalar, text0, text1, pr, audio, vertices, faces) = _events(w.path)
    assert version.file_version == "brain.Event:2" and w.path.name == "events.out.tfevents.1700000000.h"
    assert (scalar.step, scalar.wall_time, scalar.summary.value[0].simple_value) == (3, 1_700_000_003.5, 0.5)
    assert text0.summary.value[0].tag == "lr/text_summary"
    assert text0.summary.value[0].metadata.plugin_data.plugin_name == "text"
    assert not text1.summary.value[0].HasField("metadata")  # a tag is described once, as writers do
    assert text1.summary.value[0].tensor.string_val == [b"0.02"]
    value = pr.summary.value[0]
    data = plugin_pr_curve_pb2.PrCurvePluginData.FromString(value.metadata.plugin_data.content)
    assert value.metadata.plugin_data.plugin_name == "pr_curves" and data.num_thresholds == 5
    assert [d.size for d in value.tensor.tensor_shape.dim] == [6, 5]
    clip = audio.summary.value[0].audio
    with wave.open(io.BytesIO(clip.encoded_audio_string)) as wav:
        assert (wav.getframerate(), wav.getnframes(), wav.getsampwidth()) == (8000, 80, 2)
    assert (clip.sample_rate, clip.length_frames, clip.content_type) == (8000, 80, "audio/wav")
    mesh = plugin_mesh_pb2.MeshPluginData.FromString(faces.summary.value[0].metadata.plugin_data.content)
    assert (vertices.summary.value[0].tag, mesh.name, mesh.content_type, list(mesh.shape)) == \
        ("cube_VERTEX", "cube", plugin_mesh_pb2.MeshPluginData.FACE, [1, 12, 3])
    for key, number in (("e0", 0.25), ("e1", 0.75)):
        (_, child) = _events(next((tmp_path / "run" / "load" / key).glob("events.out.tfevents.*")))
        assert (child.summary.value[0].tag, child.summary.value[0].simple_value) == ("load", number)
    session = _events(next((tmp_path / "run" / "s1").glob("events.out.tfevents.*")))
    assert [e.summary.value[0].tag for e in session[1:]] == ["_hparams_/experiment", "_hparams_/session_start_info",
                                                            "_hparams_/session_end_info", "acc"]
    start = plugin_hparams_pb2.HParamsPluginData.FromString(session[2].summary.value[0].metadata.plugin_data.content)
    assert start.session_start_info.hparams["lr"].number_value == 0.1
    assert start.session_start_info.hparams["opt"].string_value == "adam"
    assert start.session_start_info.hparams["fused"].bool_value is True


def test_embedding_files_and_projector_config(tmp_path: Path) -> None:
    run = tmp_path / "run"
    with TfeventsWriter(run, timestamp=1_700_000_000, host="h") as w:
        folder = w.add_embedding(np.arange(6).reshape(3, 2), "words", step=7, metadata=[("a", 1), ("b", 2), ("c", 3)],
                                 metadata_header=("label", "n"), sprite=np.zeros((3, 4, 4, 3)))
    assert folder == run / "00007" / "words"
    assert (folder / "tensors.tsv").read_text() == "0.0\t1.0\n2.0\t3.0\n4.0\t5.0\n"
    assert (folder / "metadata.tsv").read_text() == "label\tn\na\t1\nb\t2\nc\t3\n"
    config = (run / "projector_config.pbtxt").read_text()
    assert 'tensor_name: "words:00007"' in config and 'tensor_path: "00007/words/tensors.tsv"' in config
    assert "single_image_dim: 4" in config
    parsed = text_format.Parse(config, tb_projector_pb2.ProjectorConfig())
    assert parsed.embeddings[0].metadata_path == "00007/words/metadata.tsv"
