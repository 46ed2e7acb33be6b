"""ingest/npy_file.py: headers, truncation, windows and chunks, on disk and from a real S3 server (moto)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.npy_file import NpyArray, NpyError, read_header, selection_shape
from tests.s3_server import S3Server

ARRAYS = {
    "c.npy": np.arange(7 * 9 * 11, dtype=np.float32).reshape(7, 9, 11),
    "f.npy": np.asfortranarray(np.arange(7 * 9 * 11, dtype=np.int64).reshape(7, 9, 11) * -3),
    "b.npy": (np.arange(60).reshape(6, 10) % 3 == 0),
    "scalar.npy": np.array(2.5, dtype=np.float64),
    "empty.npy": np.zeros((3, 0), dtype=np.float32),
}
WINDOWS = [
    (0, slice(None), slice(None)), (6, slice(2, 5), slice(None, None, 3)), (slice(1, 3), 4, slice(10, 0, -2)),
    (slice(None, None, -1), slice(8, 9), 10), (-1, -2, slice(-3, None)), (3, slice(5, 5), slice(None)),
]


def _write(root: Path) -> None:
    for name, array in ARRAYS.items():
        np.save(root / name, array)


@pytest.fixture(params=["local", "s3"])
def base(request: pytest.FixtureRequest, tmp_path: Path) -> storage.Location:
    _write(tmp_path)
    if request.param == "local":
        return tmp_path
    server: S3Server = request.getfixturevalue("s3_server")
    prefix = f"npy/{request.node.name}"
    server.upload_tree(tmp_path, "unit", prefix)
    return storage.base_location(f"s3://unit/{prefix}", server.storage_options)


def _open(base: storage.Location, name: str) -> NpyArray:
    location = base / name
    header, prefix = read_header(location, storage.stat(location).size)
    return NpyArray(location, header, b"" if name == "c.npy" else prefix)  # c.npy: no prefix, reads ranges


def test_whole_windows_and_chunks_equal_numpy(base: storage.Location) -> None:
    for name, expected in ARRAYS.items():
        array = _open(base, name)
        assert array.header.shape == expected.shape and array.header.dtype == expected.dtype
        assert array.header.fortran_order == (name == "f.npy")
        assert np.array_equal(array.whole(), expected)
        flat = np.concatenate([c for c in array.chunks(40)]) if expected.size else np.zeros(0)
        assert np.array_equal(np.sort(flat), np.sort(expected.reshape(-1)))
        if expected.ndim == 3:
            for window in WINDOWS:
                got = array.window(window)
                assert got.shape == selection_shape(expected.shape, window)
                assert np.array_equal(got, expected[window]), (name, window)


def test_remote_windows_read_only_their_span(s3_server: S3Server, tmp_path: Path) -> None:
    big = np.arange(400 * 500, dtype=np.float64).reshape(400, 500)
    np.save(tmp_path / "big.npy", big)
    s3_server.upload_tree(tmp_path, "unit", "npy-span")
    location = storage.base_location("s3://unit/npy-span", s3_server.storage_options) / "big.npy"
    header, _ = read_header(location, storage.stat(location).size)
    array = NpyArray(location, header)
    before = s3_server.requests_logged()
    assert np.array_equal(array.window((slice(10, 12), slice(None))), big[10:12])
    assert s3_server.requests_logged() - before == 1  # one ranged GET of 2 rows, not the 1.6 MB file


def test_truncated_foreign_and_hostile_files(tmp_path: Path) -> None:
    np.save(tmp_path / "ok.npy", np.ones((100, 100), np.float32))
    data = (tmp_path / "ok.npy").read_bytes()
    (tmp_path / "cut.npy").write_bytes(data[:5000])
    (tmp_path / "foreign.npy").write_bytes(b"PK\x03\x04 not numpy")
    (tmp_path / "empty.npy").write_bytes(b"")
    buffer = io.BytesIO()
    np.save(buffer, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    (tmp_path / "pickle.npy").write_bytes(buffer.getvalue())
    for name, message in [("cut.npy", "truncated: 5000 bytes"), ("foreign.npy", "not a .npy"),
                          ("empty.npy", "empty"), ("pickle.npy", "object arrays")]:
        with pytest.raises(NpyError, match=message):
            read_header(tmp_path / name, (tmp_path / name).stat().st_size)


def test_selection_shape_needs_no_data() -> None:
    huge = (10**9, 10**9, 4)  # 4e18 elements: any real array of this shape would fail to allocate
    assert selection_shape(huge, (0, slice(None, 3), slice(None))) == (3, 4)
    assert selection_shape(huge, (slice(5, 9), -1, slice(None, None, 2))) == (4, 2)
    assert selection_shape(huge, (7, 7, 3)) == ()


SPREAD_WINDOWS = [
    (slice(None, None, 7), 3, slice(None, None, 11)), (slice(0, 40, 13), slice(None), 59),
    (slice(None, None, -9), slice(49, 0, -16), slice(2, 60, 19)), (-1, slice(None, None, 24), slice(None)),
    (slice(5, 6), 7, slice(None, None, -1)), (0, 0, 0),
]


@pytest.mark.parametrize("order", ["C", "F"])
def test_spread_windows_are_read_in_pieces_equal_numpy(tmp_path: Path, order: str) -> None:
    """A window spread over a file far larger than it is read as several spans (boxes), each bounded."""
    expected = np.asarray(np.arange(40 * 50 * 60, dtype=np.float64).reshape(40, 50, 60), order=order)
    np.save(tmp_path / "spread.npy", expected)
    location = tmp_path / "spread.npy"
    header, _ = read_header(location, location.stat().st_size)
    array = NpyArray(location, header)  # no prefix: every window is read by ranges
    for window in SPREAD_WINDOWS:
        got = array.window(window)
        assert got.shape == selection_shape(expected.shape, window) and np.array_equal(got, expected[window]), window


def test_crafted_headers_are_refused_before_anything_is_read(tmp_path: Path) -> None:
    def header(descr: str, shape: str, version: int = 1) -> bytes:
        text = f"{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}".encode()
        text += b" " * (-(10 + (version > 1) * 2 + len(text) + 1) % 64) + b"\n"
        return b"\x93NUMPY" + bytes([version, 0]) + len(text).to_bytes(2 if version == 1 else 4, "little") + text

    cases = {
        "long": (header("'<f4'", "(" + "1, " * 5000 + ")"), "header is .* bytes long"),
        "dims": (header("'<f4'", "(" + "1, " * 33 + ")"), "33 dimensions"),
        "record": (header("[('a', [('b', '<f4')])]", "(1,)"), "structured"),
        "subarray": (header("('<f4', (4,))", "(1,)"), "structured|subarray"),
        "string": (header("'|S8'", "(1,)"), "numeric dtype"),
        "overflow": (header("'<f8'", f"(0, {2**40}, {2**40})", version=2), "more than 2\\*\\*62"),
        "version": (b"\x93NUMPY\x07\x00" + b"\0" * 60, "version 7"),
    }
    for name, (data, message) in cases.items():
        (tmp_path / name).write_bytes(data + b"\0" * 64)
        with pytest.raises(NpyError, match=message):
            read_header(tmp_path / name, len(data) + 64)
