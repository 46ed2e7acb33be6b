"""The TensorBoard kinds' typed values (ingest.tfevents_kinds) for layouts the shared fixtures do not hold: TF2
audio tensors, text matrices, hparams domains, malformed plugin data."""

from __future__ import annotations

import io
import wave

import numpy as np
import pytest

from mindinsight_clone.ingest import tfevents_kinds as kinds
from mindinsight_clone.proto import tb_hparams_pb2, tb_plugins_pb2, tb_summary_pb2, tb_tensor_pb2, tb_types_pb2


def _strings(values: list[bytes], shape: list[int]) -> tb_tensor_pb2.TensorProto:
    proto = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_STRING, string_val=values)
    for size in shape:
        proto.tensor_shape.dim.add(size=size)
    return proto


def _wav(frames: int, rate: int, channels: int = 1) -> bytes:
    buf = io.BytesIO()
    with wave.open(buf, "wb") as clip:
        clip.setnchannels(channels)
        clip.setsampwidth(2)
        clip.setframerate(rate)
        clip.writeframes(b"\x00\x00" * frames * channels)
    return buf.getvalue()


def test_tf2_audio_tensor_takes_rate_and_frames_from_the_wav_header() -> None:
    clip = kinds.audio_from_tensor(_strings([_wav(300, 22050, 2), b"a label"], [1, 2]))
    assert (clip.sample_rate, clip.num_channels, clip.length_frames, clip.label) == (22050, 2, 300, "a label")
    with pytest.raises(ValueError, match=r"\[k, 2\]"):
        kinds.audio_from_tensor(_strings([_wav(3, 8000)], [1]))


def test_audio_proto_must_be_a_wav_when_it_says_so() -> None:
    good = tb_summary_pb2.Summary.Audio(sample_rate=8000, encoded_audio_string=_wav(80, 8000), content_type="audio/wav")
    assert kinds.audio_from_proto(good).length_frames == 80
    with pytest.raises(ValueError, match="RIFF/WAVE"):
        kinds.audio_from_proto(tb_summary_pb2.Summary.Audio(encoded_audio_string=b"OggS...", content_type="audio/wav"))
    ogg = kinds.audio_from_proto(tb_summary_pb2.Summary.Audio(encoded_audio_string=b"OggS", content_type="audio/ogg"))
    assert ogg.content_type == "audio/ogg"


def test_text_tensor_shapes() -> None:
    assert kinds.text_from_tensor(_strings([b"one"], []), 100).text == "one"
    assert kinds.text_from_tensor(_strings([b"a", b"b"], [2]), 100).text == "a\n\nb"
    table = kinds.text_from_tensor(_strings([b"k", b"v", b"lr", b"0|1"], [2, 2]), 100).text
    assert table == "| k | v |\n|---|---|\n| lr | 0\\|1 |"
    cut = kinds.text_from_tensor(_strings(["é".encode() * 50], [1]), 10)
    assert (cut.text, cut.length, cut.truncated) == ("é" * 10, 50, True)
    with pytest.raises(ValueError, match="DT_STRING"):
        kinds.text_from_tensor(tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_FLOAT, float_val=[1.0]), 10)


def test_hparams_experiment_with_domains_and_undecodable_data() -> None:
    exp = tb_hparams_pb2.Experiment()
    h = exp.hparam_infos.add(name="opt", type=tb_hparams_pb2.DATA_TYPE_STRING)
    h.domain_discrete.values.add(string_value="adam")
    exp.hparam_infos.add(name="lr", type=tb_hparams_pb2.DATA_TYPE_FLOAT64).domain_interval.max_value = 0.1
    exp.metric_infos.add().name.tag = "acc"
    content = tb_hparams_pb2.HParamsPluginData(experiment=exp).SerializeToString()
    value = kinds.hparams_from_metadata(content, "_hparams_/experiment")
    assert value.kind == "experiment" and value.data["metrics"] == ["acc"]
    assert value.data["hparams"] == [{"name": "opt", "type": "DATA_TYPE_STRING", "domain": ["adam"]},
                                     {"name": "lr", "type": "DATA_TYPE_FLOAT64", "interval": [0.0, 0.1]}]
    with pytest.raises(ValueError, match="does not decode"):
        kinds.hparams_from_metadata(b"\xff\xff\xff", "_hparams_/experiment")
    with pytest.raises(ValueError, match="no experiment or session"):
        kinds.hparams_from_metadata(b"", "_hparams_/x")


def test_mesh_needs_a_component_and_finite_numbers() -> None:
    tensor = tb_tensor_pb2.TensorProto(dtype=tb_types_pb2.DT_FLOAT,
                                       tensor_content=np.ones((1, 2, 3), "<f4").tobytes())
    for size in (1, 2, 3):
        tensor.tensor_shape.dim.add(size=size)
    vertex = tb_plugins_pb2.MeshPluginData(name="m", content_type=tb_plugins_pb2.MeshPluginData.VERTEX)
    assert kinds.mesh_from_tensor(tensor, vertex.SerializeToString(), "m_1").array.shape == (2, 3)
    with pytest.raises(ValueError, match="no content type"):
        kinds.mesh_from_tensor(tensor, b"", "m_1")
    tensor.tensor_content = np.array([[[np.nan, 0, 0], [0, 0, 0]]], "<f4").tobytes()
    with pytest.raises(ValueError, match="NaN"):
        kinds.mesh_from_tensor(tensor, vertex.SerializeToString(), "m_1")
