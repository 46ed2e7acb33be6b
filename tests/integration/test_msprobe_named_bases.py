"""msprobe dumps and result files under several named base dirs (`--summary-base-dir a=/x,b=/y`, issue 35): each
listed with its base's prefix (`./a/...`) and served from it; before, named bases listed none."""

from __future__ import annotations

from pathlib import Path

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.unit.ingest.test_msprobe_entry_scan import write_dump

API = "/v1/mindinsight/msprobe"
CSV = "NPU Name,Bench Name,Result\nFunctional.relu.0.forward.output.0,Functional.relu.0.forward.output.0,pass\n"


def test_dumps_and_files_of_every_named_base(tmp_path: Path) -> None:
    for base, nodes in (("a_dir", 2), ("b_dir", 3)):
        for step in range(2):
            folder = tmp_path / base / "dump" / f"step{step}" / "rank0"
            folder.mkdir(parents=True)
            write_dump(folder / "dump.json", [f"Functional.relu.{i}.forward" for i in range(nodes)])
        (tmp_path / base / "compare_result_1.csv").write_text(CSV)
    app = create_app(settings_for_tests(summary_base_dir=f"a={tmp_path / 'a_dir'},b={tmp_path / 'b_dir'}",
                                        workspace=str(tmp_path / "ws"), reload_interval=0), start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    client = app.test_client()
    dumps = {d["dump_id"]: d for d in client.get(f"{API}/dumps").get_json()["dumps"]}
    assert sorted(dumps) == ["./a/dump", "./b/dump"]
    assert dumps["./b/dump"]["steps"] == [0, 1]
    for dump_id, nodes in (("./a/dump", 2), ("./b/dump", 3)):
        page = client.get(f"{API}/nodes", query_string={"dump_id": dump_id, "step": 1, "rank": "0"}).get_json()
        assert page["total"] == nodes
    files = sorted(f["file_id"] for f in client.get(f"{API}/files").get_json()["files"])
    assert files == ["./a/compare_result_1.csv", "./b/compare_result_1.csv"]
    table = client.get(f"{API}/compare_result", query_string={"file_id": files[1]}).get_json()
    assert table["counts"]["pass"] == 1
    assert client.get(f"{API}/nodes", query_string={"dump_id": "./dump"}).status_code == 400  # no unprefixed id
