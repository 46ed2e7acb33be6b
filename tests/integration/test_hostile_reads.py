"""Hostile files in the summary base dir (issue 29): files swapped for symlinks after discovery, symlinked
intermediate directories, FIFOs and device files. Every read goes through `ingest.storage`, which opens without
following a final symlink, requires a regular file and checks that what it opened lies inside the base dir:
no byte of an outside file reaches a client, every request answers promptly with a 4xx, and no error names an
absolute path or quotes a file.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from mindinsight_clone.summary.tfevents_writer import TfeventsWriter

DV = "/v1/mindinsight/datavisual"
MODELS = "/v1/mindinsight/models"
SECRET = "root:x:0:0:TOP-SECRET-0xC0FFEE"
PROMPT_S = 5.0  # an answer later than this is a hung request thread


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """tmp/base (the summary base dir) beside tmp/outside (what must never be served)."""
    (tmp_path / "base").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{SECRET}\n{SECRET}\n")
    (outside / "ok.dot").write_text(f"digraph {{ {SECRET} }}\n")
    (outside / "t.tsv").write_text(f"{SECRET}\n")
    return tmp_path


def _client(root: Path) -> FlaskClient:
    settings = settings_for_tests(summary_base_dir=str(root / "base"), workspace=str(root / "ws"), reload_interval=0,
                                  max_depth=4)
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()
    return app.test_client()


def _reload(client: FlaskClient) -> None:
    assert client.application is not None
    client.application.extensions["mindinsight_clone"].data_manager.reload()


def _projector_run(run: Path, config: str) -> None:
    TfeventsWriter(run, timestamp=1_760_000_000, host="h").close()
    (run / "projector_config.pbtxt").write_text(config)


def _clean(response: TestResponse, root: Path) -> str:
    """The response's text, checked to carry no outside content and no absolute path."""
    text = response.get_data(as_text=True)
    assert SECRET not in text and "root:x" not in text, text[:300]
    assert str(root) not in text, text[:300]
    return text


def _refused(client: FlaskClient, url: str, root: Path) -> dict[str, Any]:
    """GET `url` in a thread that must finish promptly; the answer must be a clean 4xx JSON error."""
    response = _prompt(lambda: client.get(url))
    _clean(response, root)
    assert 400 <= response.status_code < 500, (url, response.status_code, response.get_data(as_text=True)[:300])
    body: dict[str, Any] = response.get_json()
    assert set(body) == {"error_code", "error_msg"}, body
    return body


def _prompt(call: Callable[[], TestResponse], unblock: Callable[[], None] | None = None) -> TestResponse:
    """`call()` in a daemon thread joined with a timeout: a hung read fails the test instead of hanging CI."""
    out: list[TestResponse] = []
    thread = threading.Thread(target=lambda: out.append(call()), daemon=True)
    thread.start()
    thread.join(PROMPT_S)
    if thread.is_alive() and unblock is not None:
        unblock()
        thread.join(PROMPT_S)
    assert out, f"no answer within {PROMPT_S} s (a request thread hung in a read)"
    return out[0]


def _unblock(fifo: Path) -> None:
    """Release a reader blocked in open() of `fifo` (a writer comes and goes; no reader: nothing to do)."""
    with contextlib.suppress(OSError):
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))


# ------------------------------------------------------------------------------ projector files
LATE_CONFIG = ('embeddings { tensor_name: "late" tensor_path: "late.tsv" metadata_path: "late_meta.tsv" '
               'sprite { image_path: "late.png" single_image_dim: 2 single_image_dim: 2 } }\n')


def test_projector_files_that_appear_later_as_symlinks_are_never_read(root: Path) -> None:
    run = root / "base" / "run"
    _projector_run(run, LATE_CONFIG)
    client = _client(root)
    listing = client.get(f"{DV}/embeddings?train_id=./run")
    assert listing.status_code == 200 and "late" in _clean(listing, root)  # not there yet: an error, no path
    secret = root / "outside" / "secret.txt"
    for name in ("late.tsv", "late_meta.tsv", "late.png"):
        os.symlink(secret, run / name)
    for _ in range(2):  # and across rescans
        _clean(client.get(f"{DV}/embeddings?train_id=./run"), root)
        _refused(client, f"{DV}/embedding?train_id=./run&tag=late", root)
        body = _refused(client, f"{DV}/embedding/sprite?train_id=./run&tag=late", root)
        assert "late.png" in body["error_msg"] and "symbolic link" in body["error_msg"]
        _reload(client)


def test_metadata_swapped_for_a_symlink_is_not_served(root: Path) -> None:
    run = root / "base" / "run"
    _projector_run(run, 'embeddings { tensor_name: "e" tensor_path: "t.tsv" metadata_path: "m.tsv" }\n')
    (run / "t.tsv").write_text("1\t2\n3\t4\n")
    (run / "m.tsv").write_text("a\nb\n")
    client = _client(root)
    assert client.get(f"{DV}/embedding?train_id=./run&tag=e").get_json()["metadata"]["rows"] == [["a"], ["b"]]
    (run / "m.tsv").unlink()
    os.symlink(root / "outside" / "secret.txt", run / "m.tsv")
    body = _refused(client, f"{DV}/embedding?train_id=./run&tag=e", root)
    assert "m.tsv" in body["error_msg"]


def test_tensors_swapped_for_a_symlink_is_not_served_nor_quoted(root: Path) -> None:
    run = root / "base" / "run"
    _projector_run(run, 'embeddings { tensor_name: "e" tensor_path: "t.tsv" }\n')
    (run / "t.tsv").write_text("1\t2\n")
    client = _client(root)
    assert client.get(f"{DV}/embedding?train_id=./run&tag=e").status_code == 200
    (run / "t.tsv").unlink()
    os.symlink(root / "outside" / "secret.txt", run / "t.tsv")
    _refused(client, f"{DV}/embedding?train_id=./run&tag=e", root)


def test_projector_dir_swapped_for_a_symlink_is_not_read(root: Path) -> None:
    run = root / "base" / "run"
    _projector_run(run, 'embeddings { tensor_name: "e" tensor_path: "sub/t.tsv" }\n')
    (run / "sub").mkdir()
    (run / "sub" / "t.tsv").write_text("1\t2\n")
    client = _client(root)
    assert client.get(f"{DV}/embedding?train_id=./run&tag=e").status_code == 200
    shutil.rmtree(run / "sub")
    os.symlink(root / "outside", run / "sub")  # an intermediate directory now leads out of the base dir
    body = _refused(client, f"{DV}/embedding?train_id=./run&tag=e", root)
    assert "outside the summary base dir" in body["error_msg"]


def test_a_fifo_named_by_a_projector_config_answers_promptly(root: Path) -> None:
    run = root / "base" / "run"
    _projector_run(run, 'embeddings { tensor_name: "e" tensor_path: "fifo.tsv" metadata_path: "fifo.tsv" '
                        'sprite { image_path: "fifo.tsv" single_image_dim: 2 single_image_dim: 2 } }\n')
    fifo = run / "fifo.tsv"
    os.mkfifo(fifo)
    client = _client(root)
    for url in (f"{DV}/embeddings?train_id=./run", f"{DV}/embedding?train_id=./run&tag=e",
                f"{DV}/embedding/sprite?train_id=./run&tag=e"):
        response = _prompt(lambda url=url: client.get(url), lambda: _unblock(fifo))  # type: ignore[misc]
        text = _clean(response, root)
        assert response.status_code < 500 and "not a regular file" in text, (url, text[:300])
    body = _refused(client, f"{DV}/embedding?train_id=./run&tag=e", root)
    assert "fifo.tsv" in body["error_msg"]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_late_symlink_to_dev_zero_answers_promptly(root: Path) -> None:
    run = root / "base" / "run"
    _projector_run(run, 'embeddings { tensor_name: "e" tensor_path: "z.tsv" metadata_path: "z.tsv" '
                        'sprite { image_path: "z.png" single_image_dim: 2 single_image_dim: 2 } }\n')
    client = _client(root)
    os.symlink("/dev/zero", run / "z.tsv")
    os.symlink("/dev/zero", run / "z.png")
    listing = _prompt(lambda: client.get(f"{DV}/embeddings?train_id=./run"))
    assert listing.status_code == 200
    _clean(listing, root)
    _refused(client, f"{DV}/embedding?train_id=./run&tag=e", root)
    _refused(client, f"{DV}/embedding/sprite?train_id=./run&tag=e", root)


# ------------------------------------------------------------------------------ model files
@pytest.fixture
def models(root: Path) -> Iterator[FlaskClient]:
    folder = root / "base" / "models" / "sub"
    folder.mkdir(parents=True)
    (folder / "ok.dot").write_text("digraph { a -> b }\n")
    client = _client(root)
    listed = {m["model_id"] for m in client.get(f"{MODELS}/list").get_json()["models"]}
    assert "./models/sub/ok.dot" in listed
    assert "a -> b" in client.get(f"{MODELS}/text?model_id=./models/sub/ok.dot").get_json()["text"]
    yield client


def test_model_file_swapped_for_a_symlink_after_listing(root: Path, models: FlaskClient) -> None:
    model = root / "base" / "models" / "sub" / "ok.dot"
    model.unlink()
    os.symlink(root / "outside" / "secret.txt", model)
    body = _refused(models, f"{MODELS}/text?model_id=./models/sub/ok.dot", root)
    assert "symbolic link" in body["error_msg"]


def test_model_dir_swapped_for_a_symlink_after_listing(root: Path, models: FlaskClient) -> None:
    folder = root / "base" / "models" / "sub"
    shutil.rmtree(folder)
    os.symlink(root / "outside", folder)  # outside/ok.dot holds the secret
    body = _refused(models, f"{MODELS}/text?model_id=./models/sub/ok.dot", root)
    assert "outside the summary base dir" in body["error_msg"]


def test_model_file_swapped_for_a_fifo_answers_promptly(root: Path, models: FlaskClient) -> None:
    model = root / "base" / "models" / "sub" / "ok.dot"
    model.unlink()
    os.mkfifo(model)
    response = _prompt(lambda: models.get(f"{MODELS}/text?model_id=./models/sub/ok.dot"),
                       lambda: _unblock(model))
    assert 400 <= response.status_code < 500 and "not a regular file" in _clean(response, root)


def test_projector_reads_are_bounded_and_say_so(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mindinsight_clone.ingest import projector
    from mindinsight_clone.plugins import embeddings

    monkeypatch.setattr(projector, "MAX_TSV_BYTES", 64)  # the limits scaled down: small files, same code path
    monkeypatch.setattr(embeddings, "MAX_SPRITE_BYTES", 16)
    run = root / "base" / "run"
    _projector_run(run, 'embeddings { tensor_name: "e" tensor_path: "t.tsv" '
                        'sprite { image_path: "s.png" single_image_dim: 2 single_image_dim: 2 } }\n')
    (run / "t.tsv").write_text("1\t2\n" * 20)  # 80 bytes
    (run / "s.png").write_bytes(b"\x89PNG" + bytes(28))  # 32 bytes
    client = _client(root)
    (item,) = client.get(f"{DV}/embeddings?train_id=./run").get_json()["embeddings"]
    assert "t.tsv has 80 bytes, above the 64 bytes" in item["error"]
    assert "above the 64 bytes" in _refused(client, f"{DV}/embedding?train_id=./run&tag=e", root)["error_msg"]
    body = _refused(client, f"{DV}/embedding/sprite?train_id=./run&tag=e", root)
    assert "s.png has 32 bytes, above the 16 bytes allowed" in body["error_msg"]
