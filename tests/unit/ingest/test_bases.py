"""Named summary base dirs: parsing `--summary-base-dir name=path,...` (config) and the train id seam (ingest.bases)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mindinsight_clone.config import SettingError, base_dirs, settings_for_tests, split_base_dir_spec
from mindinsight_clone.errors import ParamMissError, QueryStringContainsNullByteError, TrainJobNotExistError
from mindinsight_clone.ingest.bases import Bases, describe_setting
from mindinsight_clone.ingest.train_id import InvalidTrainId, resolve_train_dir


def test_named_spec_is_parsed_and_normalized(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x").mkdir()
    assert base_dirs("a=x,b.2=s3://bucket/y/,c_-=~/z") == [
        ("a", str(tmp_path / "x")), ("b.2", "s3://bucket/y"), ("c_-", os.path.expanduser("~/z"))]
    value = settings_for_tests(summary_base_dir="a=x,b=s3://bucket/y").summary_base_dir
    assert value == f"a={tmp_path / 'x'},b=s3://bucket/y"
    assert base_dirs(value) == [("a", str(tmp_path / "x")), ("b", "s3://bucket/y")]  # what workers parse again


@pytest.mark.parametrize("value", ["/data/a=b", "./a=b", "s3://bucket/x=1,y=2", "/d/x,y", "a=b,/c", "plain", ""])
def test_plain_paths_stay_plain(value: str) -> None:
    assert split_base_dir_spec(value) is None


def test_an_existing_dir_named_like_a_spec_is_one_plain_base(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a=b").mkdir()
    (tmp_path / "a=b,c=d").mkdir()
    assert base_dirs("a=b") == [(None, str(tmp_path / "a=b"))]
    assert base_dirs("a=b,c=d") == [(None, str(tmp_path / "a=b,c=d"))]
    assert settings_for_tests(summary_base_dir="a=b").summary_base_dir == str(tmp_path / "a=b")


def test_one_unnamed_base_is_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert base_dirs("") == [(None, str(tmp_path))]
    assert base_dirs("s3://bucket/p/") == [(None, "s3://bucket/p")]
    bases = Bases.from_setting(str(tmp_path))
    assert not bases.named and bases.primary == tmp_path
    assert bases.split("./run/x") == (tmp_path, "./run/x")
    assert bases.split("./") == (tmp_path, "./")


@pytest.mark.parametrize(("value", "message"), [
    ("a=/x,a=/y", "given twice"), ("..=/x", "cannot be '..'"), (".=/x,b=/y", "cannot be '.'"), ("a=,b=/y", "names no"),
])
def test_bad_specs_are_refused(value: str, message: str) -> None:
    with pytest.raises(SettingError, match=message):
        base_dirs(value)


def test_named_train_ids_map_to_their_base(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name / "run1" / "deep").mkdir(parents=True)
    bases = Bases.from_setting(f"a={tmp_path / 'a'},b={tmp_path / 'b'}")
    assert bases.named and bases.describe() == f"a={tmp_path / 'a'}, b={tmp_path / 'b'}"
    assert bases.split("./a/run1") == (tmp_path / "a", "./run1")
    assert bases.split("./b") == (tmp_path / "b", "./")
    assert resolve_train_dir(bases, "./b/run1/deep/") == tmp_path / "b" / "run1" / "deep"
    assert resolve_train_dir(bases, "./a") == tmp_path / "a"
    [a, b] = list(bases)
    assert (a.train_id("./"), a.train_id("./x/y"), b.describe()) == ("./a", "./a/x/y", f"b={tmp_path / 'b'}")


@pytest.mark.parametrize(("train_id", "error"), [
    ("./c/run1", InvalidTrainId), ("./", InvalidTrainId), ("./a/../b/run1", InvalidTrainId), ("./../a", InvalidTrainId),
    (None, ParamMissError), ("./a\x00", QueryStringContainsNullByteError), ("/etc", InvalidTrainId),
    ("./a/nope", TrainJobNotExistError), ("a/run1", InvalidTrainId),
])
def test_tricks_and_unknown_names_are_refused(tmp_path: Path, train_id: str | None, error: type[Exception]) -> None:
    for name in ("a", "b"):
        (tmp_path / name / "run1").mkdir(parents=True)
    bases = Bases.from_setting(f"a={tmp_path / 'a'},b={tmp_path / 'b'}")
    with pytest.raises(error):
        resolve_train_dir(bases, train_id)


def test_start_can_show_the_setting() -> None:
    assert describe_setting("a=/x,b=s3://key:secret@bucket/y") == "a=/x, b=s3://bucket/y"
    assert describe_setting("s3://key:secret@bucket/y") == "s3://bucket/y"
