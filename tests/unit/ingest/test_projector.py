"""ingest.projector: a projector config's paths stay inside the run folder; TSVs read as TensorBoard does."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from mindinsight_clone.ingest import projector


def _run(tmp_path: Path, config: str) -> Path:
    run = tmp_path / "run"
    (run / "d").mkdir(parents=True)
    (run / "d" / "t.tsv").write_text("1\t2\n3\t4\n")
    (run / "projector_config.pbtxt").write_text(config)
    return run


def test_paths_inside_the_run_are_taken_others_refused(tmp_path: Path) -> None:
    (tmp_path / "outside.tsv").write_text("9\t9\n")
    run = _run(tmp_path, f'''
        embeddings {{ tensor_name: "rel:00003" tensor_path: "d/t.tsv" }}
        embeddings {{ tensor_name: "abs_inside" tensor_path: "{tmp_path / 'run' / 'd' / 't.tsv'}" }}
        embeddings {{ tensor_name: "abs_outside" tensor_path: "{tmp_path / 'outside.tsv'}" }}
        embeddings {{ tensor_name: "dots" tensor_path: "d/../../outside.tsv" }}
        embeddings {{ tensor_name: "empty" }}
        some_future_field: 1
    ''')
    read = projector.read_projector(run)
    got = {v.tag: v for v in read.values}
    assert got["rel"].step == 3 and got["rel"].value.tensor == run / "d" / "t.tsv" and not got["rel"].value.problem
    assert got["abs_inside"].value.tensor == run / "d" / "t.tsv"  # TensorFlow writes absolute paths
    for tag in ("abs_outside", "dots"):
        assert got[tag].value.tensor is None and "outside the run folder" in got[tag].value.problem
    assert "no tensor_path" in got["empty"].value.problem
    assert len(read.problems) == 3 and all(p.kind == "bad_payload" for p in read.problems)


def test_symlinked_folder_out_of_the_run_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "t.tsv").write_text("1\n")
    run = _run(tmp_path, 'embeddings { tensor_name: "x" tensor_path: "link/t.tsv" }')
    os.symlink(tmp_path / "elsewhere", run / "link")
    (value,) = projector.read_projector(run).values
    assert value.value.tensor is None and "outside the run folder" in value.value.problem


def test_same_name_at_two_steps_keeps_both(tmp_path: Path) -> None:
    run = _run(tmp_path, 'embeddings { tensor_name: "w:00000" tensor_path: "d/t.tsv" }\n'
                         'embeddings { tensor_name: "w:00010" tensor_path: "d/t.tsv" }')
    assert [(v.tag, v.step) for v in projector.read_projector(run).values] == [("w:00000", 0), ("w:00010", 10)]


def test_tsv_readers(tmp_path: Path) -> None:
    (tmp_path / "t.tsv").write_text("1\t2\n3\t4\n5\t6")  # no newline at the end
    assert projector.tensor_shape(tmp_path / "t.tsv") == (3, 2)
    np.testing.assert_array_equal(projector.read_tensors(tmp_path / "t.tsv", 2), [[1, 2], [3, 4]])
    (tmp_path / "one.tsv").write_text("cat\ndog\n")  # one column: no header (TensorBoard's rule)
    assert projector.read_metadata(tmp_path / "one.tsv", 10) == (["label"], [["cat"], ["dog"]])
    (tmp_path / "two.tsv").write_text("label\tsplit\ncat\ttrain\ndog\tvalid\n")
    assert projector.read_metadata(tmp_path / "two.tsv", 1) == (["label", "split"], [["cat", "train"]])
