"""The statistics index of a dump.json (analyzers/debugger/msprobe_index.py): kept as Parquet in the workspace and
read back equal (NaN apart from "not written"), so a new server (or another replica) checks watchpoints over a
dump without parsing its dump.json again."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from mindinsight_clone.analyzers.debugger import msprobe_index
from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.ingest import msprobe_dump
from mindinsight_clone.server.app import create_app
from mindinsight_clone.server.routes_msprobe import SERVICE_KEY
from tests.unit.analyzers.debugger.test_msprobe_watch import NAN, dump, leaf
from tests.unit.ingest.test_msprobe_entry_scan import write_dump


def test_the_table_reads_back_equal() -> None:
    table = msprobe_index.stats_table(dump(
        ("A.0.forward", [("input", "0", leaf(1, 0, 0.5, 2)), ("output", "0", leaf(NAN, None, "inf", 3))]),
        ("B.0.forward", [("input", "x", {"type": "int", "value": 1})]),
        ("C.0.backward", [("output", "0", leaf(-1e30, 5, None, 0))])))
    encoded, meta = msprobe_index.STATS_CODEC.encode(table)
    arrow: pa.Table = encoded
    back = msprobe_index.STATS_CODEC.decode(arrow.to_batches(max_chunksize=2), arrow.num_rows, arrow.schema,
                                            json.loads(json.dumps(meta)))
    assert back.names == table.names and back.keys == table.keys and back.complete == table.complete
    assert np.array_equal(back.node, table.node) and np.array_equal(back.code, table.code)
    assert np.array_equal(back.present, table.present)
    assert np.array_equal(back.values, table.values, equal_nan=True)
    assert back.present[1, 0] and np.isnan(back.values[1, 0])  # a NaN msprobe wrote is not "not written"
    assert not back.present[1, 1]


def watch_hits(workspace: Path, base: Path) -> tuple[dict[str, Any], int]:
    app = create_app(settings_for_tests(summary_base_dir=str(base), workspace=str(workspace), reload_interval=0),
                     start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    answer = app.test_client().get("/v1/mindinsight/msprobe/watch",
                                   query_string={"dump_id": "./dump", "condition": "too_large", "max_gt": 0.5})
    assert answer.status_code == 200, answer.get_data(as_text=True)
    dumps = app.extensions["mindinsight_clone"].extras[SERVICE_KEY]
    dumps.cache.store.flush()  # the index is written by a background thread
    return answer.get_json(), len(list((workspace / "cache" / "msprobe").glob("*.parquet")))


def test_a_new_server_reads_the_index_not_the_dump(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="mindinsight_clone.analyzers.profiler.engine.table_store")
    for step in range(3):
        folder = tmp_path / "logs" / "dump" / f"step{step}" / "rank0"
        folder.mkdir(parents=True)
        write_dump(folder / "dump.json", [f"Functional.relu.{i}.forward" for i in range(4)])
    first, files = watch_hits(tmp_path / "ws", tmp_path / "logs")
    assert first["total"] > 0 and files == 3  # one index per dump.json
    kept = [r.getMessage() for r in caplog.records if " cache: kept " in r.getMessage()]
    assert len(kept) == 3 and all(m.startswith("msprobe cache: ") for m in kept)  # not the profiler's

    def refuse(_location: object) -> None:
        raise AssertionError("a dump.json was parsed again")

    monkeypatch.setattr(msprobe_dump, "read_dump_json", refuse)
    again, _ = watch_hits(tmp_path / "ws", tmp_path / "logs")
    assert again["hits"] == first["hits"] and again["total"] == first["total"]
