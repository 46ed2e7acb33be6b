"""ParsedFileCache: bounded by entries and bytes, re-reads a rewritten file, one parse per file under concurrency."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from mindinsight_clone.analyzers.profiler.engine.cache import ParsedFileCache


@dataclass
class Parsed:
    name: str
    nbytes: int


def _files(tmp_path: Path, n: int) -> list[Path]:
    paths = []
    for i in range(n):
        path = tmp_path / f"f{i}.csv"
        path.write_text(str(i))
        paths.append(path)
    return paths


def test_byte_bound_evicts_oldest(tmp_path: Path) -> None:
    cache = ParsedFileCache(max_entries=10, max_bytes=250)
    calls: list[str] = []

    def parse(path: Path) -> Parsed:
        calls.append(path.name)
        return Parsed(path.name, 100)

    a, b, c = _files(tmp_path, 3)
    for path in (a, b, c):
        cache.get("k", path, parse)
    assert cache.nbytes == 200  # a was dropped when c came in (300 > 250)
    cache.get("k", b, parse)
    cache.get("k", a, parse)
    assert calls == ["f0.csv", "f1.csv", "f2.csv", "f0.csv"]


def test_entry_bound_and_rewrite(tmp_path: Path) -> None:
    cache = ParsedFileCache(max_entries=1)
    (a,) = _files(tmp_path, 1)
    assert cache.get("k", a, lambda p: p.read_text()) == "0"
    a.write_text("changed, longer")
    assert cache.get("k", a, lambda p: p.read_text()) == "changed, longer"


def test_single_flight(tmp_path: Path) -> None:
    cache = ParsedFileCache()
    (a,) = _files(tmp_path, 1)
    calls: list[int] = []

    def slow_parse(path: Path) -> str:
        calls.append(1)
        time.sleep(0.3)
        return path.read_text()

    results: list[str] = []
    threads = [threading.Thread(target=lambda: results.append(cache.get("k", a, slow_parse))) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert results == ["0"] * 4
    assert len(calls) == 1


def test_many_small_files_do_not_evict_a_big_one(tmp_path: Path) -> None:
    """A cluster view reads one small file per rank: hundreds of entries must not push out a big parsed table."""
    cache = ParsedFileCache(max_bytes=10_000)
    big, *small = _files(tmp_path, 301)
    calls: list[str] = []

    def parse_big(path: Path) -> Parsed:
        calls.append(path.name)
        return Parsed(path.name, 5_000)

    cache.get("big", big, parse_big)
    for path in small:
        cache.get("small", path, lambda p: p.read_text())  # weighs its file size (1-3 bytes)
    cache.get("big", big, parse_big)
    cache.get("derived", big, lambda p: {"summary": 1}, weight=10)  # not the big file's size
    cache.get("big", big, parse_big)
    assert calls == ["f0.csv"]


def test_big_files_are_parsed_one_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two big files asked at once are parsed one after the other (bounded peak memory); small ones side by side."""
    from mindinsight_clone.analyzers.profiler.engine import cache as cache_module

    monkeypatch.setattr(cache_module, "BIG_FILE_BYTES", 100)
    big = [tmp_path / f"big{i}.json" for i in range(2)]
    small = [tmp_path / f"small{i}.json" for i in range(2)]
    for path in big:
        path.write_bytes(b"x" * 200)
    for path in small:
        path.write_bytes(b"x")
    running, most = [0], {}
    lock = threading.Lock()

    def parse(path: Path) -> str:
        with lock:
            running[0] += 1
            most[path.name[:3]] = max(most.get(path.name[:3], 0), running[0])
        time.sleep(0.3)
        with lock:
            running[0] -= 1
        return path.name

    for group in (big, small):
        cache = ParsedFileCache()
        threads = [threading.Thread(target=cache.get, args=("k", path, parse)) for path in group]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=10)
    assert most == {"big": 1, "sma": 2}


def test_peek_answers_only_what_is_cached_for_the_file_as_it_is(tmp_path: Path) -> None:
    cache = ParsedFileCache()
    (path,) = _files(tmp_path, 1)
    assert cache.peek("k", path) is None  # nothing parsed by a peek
    value = cache.get("k", path, lambda p: Parsed(p.name, 1))
    assert cache.peek("k", path) is value and cache.peek("other", path) is None
    path.write_text("rewritten, longer")
    assert cache.peek("k", path) is None
    assert cache.peek("k", tmp_path / "absent") is None
