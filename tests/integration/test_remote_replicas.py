"""Several replicas over one bucket (docs/remote-storage.md, "Several replicas behind a reverse proxy"):
each reads the same objects and answers the same, with no state shared; the one state a request writes,
lineage notes (tag/remark), is per workspace unless the replicas share `<workspace>/lineage`."""

from __future__ import annotations

import uuid
from pathlib import Path

from flask.testing import FlaskClient

from tests.remote_base import s3_app
from tests.s3_server import S3Server
from tests.unit.analyzers.lineage.builders import write_run

API = "/v1/mindinsight"


def _bucket_with_runs(server: S3Server, tmp_path: Path) -> str:
    prefix = f"replicas-{uuid.uuid4().hex[:8]}"
    write_run(tmp_path / "up", "a", 100, metric={"Accuracy": 0.5})
    write_run(tmp_path / "up", "b", 200, metric={"Accuracy": 0.7})
    server.upload_tree(tmp_path / "up", "replicas", prefix)
    return f"s3://replicas/{prefix}"


def _lineage(client: FlaskClient) -> dict[str, object]:
    body = client.post(f"{API}/lineagemgr/lineages", json={}).get_json()
    return {o["summary_dir"]: o["added_info"] for o in body["object"]}


def test_replicas_answer_alike_and_share_notes_only_through_a_shared_lineage_dir(
        s3_server: S3Server, tmp_path: Path) -> None:
    url = _bucket_with_runs(s3_server, tmp_path)
    shared_notes = tmp_path / "shared-lineage"
    shared_notes.mkdir()
    workspaces = [tmp_path / f"ws{i}" for i in range(3)]
    for ws in workspaces[:2]:  # replicas 0 and 1 mount one lineage dir; replica 2 keeps its own
        ws.mkdir()
        (ws / "lineage").symlink_to(shared_notes, target_is_directory=True)
    log_start = s3_server.log_path.stat().st_size
    replicas = [s3_app(s3_server, url, ws).test_client() for ws in workspaces]

    answers = [(c.get(f"{API}/datavisual/train-jobs?limit=9").get_json()["total"], _lineage(c)) for c in replicas]
    assert answers[0] == answers[1] == answers[2] == (2, {"./a": {}, "./b": {}})

    put = replicas[0].put(f"{API}/lineagemgr/lineages?train_id=./a", json={"tag": 3, "remark": "best so far"})
    assert put.status_code == 200
    assert _lineage(replicas[1])["./a"] == {"tag": 3, "remark": "best so far"}  # same shared notes file
    assert _lineage(replicas[2])["./a"] == {}  # its own workspace: the note is not there
    assert (shared_notes / "added_info.json").is_file()
    with s3_server.log_path.open("rb") as log:  # the replicas only read the store, even for the PUT of a note
        log.seek(log_start)
        methods = {line.split(b'"', 2)[1].split(b" ")[0].lstrip(b"\x1b[0123456789;m") for line in log
                   if line.count(b'"') >= 2}
    assert methods and methods <= {b"GET", b"HEAD"}, methods
