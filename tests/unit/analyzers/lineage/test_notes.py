from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from mindinsight_clone.analyzers.lineage.notes import AddedInfoStore, validate_added_info
from mindinsight_clone.errors import LineageParamValueError


def test_update_merges_and_persists(tmp_path: Path) -> None:
    store = AddedInfoStore(tmp_path / "lineage", "/base")
    assert store.get_all() == {}
    store.update("./a", {"tag": 3})
    store.update("./a", {"remark": "good"})
    assert store.get_all() == {"./a": {"tag": 3, "remark": "good"}}
    again = AddedInfoStore(tmp_path / "lineage", "/base")  # a restart
    assert again.get_all() == {"./a": {"tag": 3, "remark": "good"}}
    assert [p.name for p in (tmp_path / "lineage").iterdir() if p.name.endswith(".tmp")] == []


def test_base_dirs_are_kept_apart(tmp_path: Path) -> None:
    AddedInfoStore(tmp_path, "/one").update("./a", {"tag": 1})
    assert AddedInfoStore(tmp_path, "/two").get_all() == {}
    data = orjson.loads((tmp_path / "added_info.json").read_bytes())
    assert data["version"] == 1 and data["base_dirs"]["/one"] == {"./a": {"tag": 1}}


def test_another_process_write_is_seen(tmp_path: Path) -> None:
    first, second = AddedInfoStore(tmp_path, "/b"), AddedInfoStore(tmp_path, "/b")
    first.update("./a", {"tag": 1})
    second.update("./b", {"tag": 2})  # re-reads under the lock before writing: ./a is kept
    assert first.get_all() == {"./a": {"tag": 1}, "./b": {"tag": 2}}


def test_corrupt_file_is_ignored_and_replaced(tmp_path: Path) -> None:
    (tmp_path / "added_info.json").write_text("{nope")
    store = AddedInfoStore(tmp_path, "/b")
    assert store.get_all() == {}
    store.update("./a", {"remark": ""})
    assert AddedInfoStore(tmp_path, "/b").get_all() == {"./a": {"remark": ""}}


@pytest.mark.parametrize(("info", "message"), [
    ({"tag": 11}, "ValueError. The tag should in [0, 10]."),
    ({"tag": -1}, "ValueError. The tag should in [0, 10]."),
    ({"tag": "1"}, "ValueError. 'tag' must be int."),
    ({"remark": "x" * 129}, "ValueError. The length of remark should in [0, 128]."),
    ({"remark": 1}, "ValueError. 'remark' must be str."),
    ({"color": "red"}, "ValueError. Keys of added_info must be in ['tag', 'remark']."),
])
def test_validation(info: dict[str, Any], message: str) -> None:
    with pytest.raises(LineageParamValueError) as err:
        validate_added_info(info)
    assert err.value.message == message and err.value.error_code == "50542081"


def test_valid_extremes() -> None:
    validate_added_info({"tag": 0, "remark": ""})
    validate_added_info({"tag": 10, "remark": "x" * 128})
