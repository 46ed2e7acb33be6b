"""Which sub-folders of a TensorBoard run are add_scalars keys or add_hparams sessions (ingest.tfevents_members)."""

from __future__ import annotations

from pathlib import Path

import pytest

from mindinsight_clone.ingest.record_reader import frame_record
from mindinsight_clone.ingest.tfevents_members import Member, classify, clean_tag, scalars_key
from mindinsight_clone.proto import tb_event_pb2
from mindinsight_clone.summary.tfevents_writer import TfeventsWriter


@pytest.mark.parametrize(("rel", "tag", "key"), [
    ("expert_load/layer_3/ep_0", "expert_load/layer_3", "ep_0"),  # tensorboardX: <main>/<key>
    ("loss vs x/train", "loss_vs_x", "train"),  # tensorboardX cleans the tag, not the folder
    ("expert_load_layer_3_ep_0", "expert_load/layer_3", "ep_0"),  # torch: <main with / as _>_<key>
    ("lm loss_train", "lm loss", "train"),
    ("a/b", "a/b", None),  # the folder is the tag itself: no key
    ("other/ep_0", "expert_load", None),
    ("expert_load_", "expert_load", None),
])
def test_scalars_key(rel: str, tag: str, key: str | None) -> None:
    assert scalars_key(rel, tag) == key


def test_clean_tag_is_tensorboardx_s() -> None:
    tbx = pytest.importorskip("tensorboardX.summary")
    for name in ("loss vs samples", "/lead/slash", "a:b*c", "ok-1.2/x_y", "中文"):
        assert clean_tag(name) == tbx._clean_tag(name)


def test_classify_peeks_at_the_first_summary(tmp_path: Path) -> None:
    with TfeventsWriter(tmp_path / "run", timestamp=1_700_000_000, host="h") as w:
        w.add_scalars("load/l1", {"e0": 0.5}, 1)
        w.add_hparams({"lr": 0.1}, {"acc": 0.5}, name="s")
        w.add_scalar("loss", 1.0, 1)
    with TfeventsWriter(tmp_path / "run" / "eval", timestamp=1_700_000_000, host="h") as other:
        other.add_scalar("acc", 0.5, 1)
    first = next((tmp_path / "run" / "load" / "l1" / "e0").glob("events.*"))
    assert classify("load/l1/e0", first) == Member("load/l1/e0", "scalars", "load/l1", "e0")
    assert classify("s", next((tmp_path / "run" / "s").glob("events.*"))) == Member("s", "hparams")
    assert classify("eval", next((tmp_path / "run" / "eval").glob("events.*"))) is None  # another writer's run



def test_a_folder_whose_writer_has_not_flushed_yet_is_looked_at_again(tmp_path: Path) -> None:
    folder = tmp_path / "run" / "load" / "e0"
    TfeventsWriter(folder, timestamp=1_700_000_000, host="h").close()  # the version record only
    (path,) = folder.glob("events.*")
    assert classify("load/e0", path) is None
    event = tb_event_pb2.Event(wall_time=1.0, step=1)
    event.summary.value.add(tag="load", simple_value=0.5)
    with path.open("ab") as handle:  # the first step is flushed later: "nothing yet" was not remembered
        handle.write(frame_record(event.SerializeToString()))
    assert classify("load/e0", path) == Member("load/e0", "scalars", "load", "e0")
