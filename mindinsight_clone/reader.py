"""Read a summary base dir into pandas DataFrames, for notebooks and scripts (issue 31).

    from mindinsight_clone import reader
    df = reader.read_scalars("/data/summaries")            # or "s3://bucket/summaries", storage_options={...}
    df.pivot_table(index="step", columns=["run", "tag"], values="value")

Runs are found by the server's discovery (`ingest.summary_watcher.scan_runs`), so `run` equals the server's
`train_id` ("./", "./<name>"), and each run is read by the server's loader (`store.loader.RunLoader` with the
same record reader and parsers, into a `RunCache`), so tags and values are the server's. What differs: every
step is kept (no reservoir sampling, no tag limits, whole texts). Scalars come from the point store, i.e. exactly
what `scalar/metadata?start_step=&end_step=&points=` returns when the window holds every point.

pandas is an optional extra (`pip install 'mindinsight-clone[reader]'`); Flask is never imported.
"""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mindinsight_clone.config import BY_NAME, Settings, resolve
from mindinsight_clone.config import storage_options as config_storage_options
from mindinsight_clone.ingest import formats, projector, storage, summary_watcher
from mindinsight_clone.ingest.summary_watcher import RunInfo
from mindinsight_clone.ingest.values import Histogram, Image, Tensor, Text
from mindinsight_clone.store import data_manager
from mindinsight_clone.store.loader import RunLoader
from mindinsight_clone.store.point_store import PointRoot
from mindinsight_clone.store.reservoir import Sample
from mindinsight_clone.store.run_cache import RunCache

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_histograms", "read_images", "read_runs", "read_scalars", "read_tensors", "read_text"]

PathOrUrl = Any  # str | os.PathLike[str] | an already made storage location
UNLIMITED = 2**31 - 1  # tag limits and text length while reading: keep everything
SCALAR_COLUMNS = ["run", "tag", "step", "wall_time", "value"]
HISTOGRAM_COLUMNS = ["run", "tag", "step", "wall_time", "left", "width", "count"]
IMAGE_COLUMNS = ["run", "tag", "step", "wall_time", "width", "height", "bytes"]
DTYPES = {"scalar": {"step": "int64", "wall_time": "float64", "value": "float64"},
          "histogram": {"step": "int64", "wall_time": "float64", "left": "float64", "width": "float64",
                        "count": "float64"},
          "image": {"step": "int64", "wall_time": "float64", "width": "int64", "height": "int64", "bytes": "int64"}}
TEXT_COLUMNS = ["run", "tag", "step", "wall_time", "text"]
TENSOR_COLUMNS = ["run", "tag", "step", "wall_time", "dims", "data_type", "value"]


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        raise ImportError("mindinsight_clone.reader needs pandas: pip install 'mindinsight-clone[reader]' "
                          "(or pip install 'pandas>=2')") from None
    return pandas


def reader_settings(workspace: str) -> Settings:
    """The server's defaults, but every step of every tag kept (reservoirs of 0 = unlimited, no tag limits)."""
    kinds = ("image", "histogram", "tensor", "text", "pr_curve", "audio", "mesh")
    every: dict[str, Any] = {f"{kind}_samples": 0 for kind in kinds}
    limits: dict[str, Any] = {name: UNLIMITED for name in ("max_tags_per_run", "max_tensor_tags", "max_graph_tags",
                                           "max_text_tags", "text_max_chars")}
    return dataclasses.replace(resolve(environ={}), workspace=workspace, **every, **limits)


def _location(path_or_url: PathOrUrl, options: Mapping[str, Any] | str | None) -> storage.Location:
    """A base dir as the server takes `--summary-base-dir` and `--storage-options` (a dict or its JSON text)."""
    given = config_storage_options(options) if isinstance(options, str) else options
    if isinstance(path_or_url, str) or hasattr(path_or_url, "__fspath__"):
        return storage.base_location(path_or_url, given)
    return storage.as_location(path_or_url)  # already a location (Path or UPath)


def list_runs(path_or_url: PathOrUrl, *, storage_options: Mapping[str, Any] | str | None = None,
              max_depth: int | None = None) -> list[RunInfo]:
    """The runs the server would list for this base dir (newest update first); FileNotFoundError if none."""
    base = _location(path_or_url, storage_options)
    depth = int(BY_NAME["max_depth"].default) if max_depth is None else max_depth
    scan = summary_watcher.scan_runs(base, max_run_count=UNLIMITED, max_depth=depth)
    if scan.failed:
        raise OSError(f"cannot list {storage.describe(base)}: {scan.failed}")
    if not scan.runs and not storage.is_dir(base, follow_symlinks=True):
        raise FileNotFoundError(f"no such directory: {storage.describe(base)}")
    return scan.runs


def _load(run: RunInfo, settings: Settings, points: PointRoot) -> RunLoader:
    """One pass of the server's loader over the run (as `DataManager._new_loader` and `_load` do it)."""
    parser = formats.RecordsParser(data_manager.parse_records, text_max_chars=settings.text_max_chars)
    parser.set_members(run.member_keys())
    fast = None if storage.is_remote(run.path) else parser.read_scalars
    loader = RunLoader(run.train_id, run.path, settings, data_manager.parse_event, data_manager.parse_pb,
                       parse_records=parser, points_root=points, read_scalars=fast,
                       parse_projector=projector.read_projector)
    loader.load_pass([f.name for f in run.summary_files] + [f.name for f in run.member_files],
                     [f.name for f in run.pb_files], projector=run.projector)
    return loader


def _caches(path_or_url: PathOrUrl, storage_options: Mapping[str, Any] | str | None, runs: Sequence[str] | None,
            max_depth: int | None) -> Iterator[RunCache]:
    """Each wanted run loaded in turn (in train_id order); its point store is deleted when the next one loads."""
    found = sorted(list_runs(path_or_url, storage_options=storage_options, max_depth=max_depth),
                   key=lambda run: run.train_id)
    if runs is not None:
        wanted = {_train_id(name) for name in runs}
        found = [run for run in found if run.train_id in wanted]
    with tempfile.TemporaryDirectory(prefix="mindinsight-reader-") as workspace:
        settings = reader_settings(workspace)
        points = PointRoot(workspace)
        for run in found:
            loader = _load(run, settings, points)
            try:
                yield loader.cache
            finally:
                loader.close()


def _train_id(name: str) -> str:
    """A run as the user may name it ("name", "./name", ".", "./") as the server's train_id."""
    name = name.removeprefix("./").strip("/")
    return "./" if name in ("", ".") else f"./{name}"


Rows = Callable[[RunCache, str], Iterator[tuple[Any, ...]]]


def _frame(plugin: str, columns: list[str], rows: Rows, path_or_url: PathOrUrl,
           storage_options: Mapping[str, Any] | str | None, runs: Sequence[str] | None, tags: Sequence[str] | None,
           max_depth: int | None) -> pd.DataFrame:
    pandas = _pandas()
    out: list[tuple[Any, ...]] = []
    for cache in _caches(path_or_url, storage_options, runs, max_depth):
        for tag in cache.tags(plugin):
            if tags is None or tag in tags:
                out.extend((cache.train_id, tag, *row) for row in rows(cache, tag))
    frame = pandas.DataFrame.from_records(out, columns=columns)
    return frame.astype(DTYPES.get(plugin, {}))


def _scalar_rows(cache: RunCache, tag: str) -> Iterator[tuple[Any, ...]]:
    window = cache.scalar_window(tag, None, None, UNLIMITED)
    if window is None:  # no point store (cannot happen in a fresh temp dir unless the disk is full)
        raise OSError(f"{cache.train_id} {tag}: full-resolution points unavailable: {cache.point_failure(tag)}")
    yield from zip(window.steps.tolist(), window.wall_times.tolist(), window.values.tolist(), strict=True)


def _samples(cache: RunCache, plugin: str, tag: str, kind: type) -> Iterator[tuple[Sample, Any]]:
    for sample in cache.samples(plugin, tag):
        if isinstance(sample.value, kind):
            yield sample, sample.value


def _histogram_rows(cache: RunCache, tag: str) -> Iterator[tuple[Any, ...]]:
    for s, hist in _samples(cache, "histogram", tag, Histogram):
        for left, width, count in zip(hist.left.tolist(), hist.width.tolist(), hist.count.tolist(), strict=True):
            yield s.step, s.wall_time, left, width, count


def _image_rows(cache: RunCache, tag: str) -> Iterator[tuple[Any, ...]]:
    for s, image in _samples(cache, "image", tag, Image):
        yield s.step, s.wall_time, image.width, image.height, len(image.encoded)


def _text_rows(cache: RunCache, tag: str) -> Iterator[tuple[Any, ...]]:
    for s, text in _samples(cache, "text", tag, Text):
        yield s.step, s.wall_time, text.text


def _tensor_rows(cache: RunCache, tag: str) -> Iterator[tuple[Any, ...]]:
    for s, tensor in _samples(cache, "tensor", tag, Tensor):
        yield s.step, s.wall_time, tensor.dims, tensor.data_type, tensor.array


def read_scalars(path_or_url: PathOrUrl, *, storage_options: Mapping[str, Any] | str | None = None,
                 runs: Sequence[str] | None = None, tags: Sequence[str] | None = None,
                 max_depth: int | None = None) -> pd.DataFrame:
    """Every scalar point: columns run, tag, step (int64), wall_time, value (float64), by run, tag, step.

    `path_or_url`: a base dir (or a single run dir, whose run is "./"), local or a URL such as s3://bucket/dir;
    `storage_options`: the fsspec options (dict, or the server's --storage-options JSON); `runs` / `tags`: keep
    only these train_ids ("./name" or "name") and tags (the server's names, e.g. "loss/scalar" for MindSpore);
    `max_depth`: as the server's --max-depth."""
    return _frame("scalar", SCALAR_COLUMNS, _scalar_rows, path_or_url, storage_options, runs, tags, max_depth)


def read_histograms(path_or_url: PathOrUrl, *, storage_options: Mapping[str, Any] | str | None = None,
                    runs: Sequence[str] | None = None, tags: Sequence[str] | None = None,
                    max_depth: int | None = None) -> pd.DataFrame:
    """One row per bucket of every histogram step: run, tag, step, wall_time, left, width, count (as written)."""
    return _frame("histogram", HISTOGRAM_COLUMNS, _histogram_rows, path_or_url, storage_options, runs, tags,
                  max_depth)


def read_images(path_or_url: PathOrUrl, *, storage_options: Mapping[str, Any] | str | None = None,
                runs: Sequence[str] | None = None, tags: Sequence[str] | None = None,
                max_depth: int | None = None) -> pd.DataFrame:
    """Metadata of every image step: run, tag, step, wall_time, width, height, bytes (size of the encoded image)."""
    return _frame("image", IMAGE_COLUMNS, _image_rows, path_or_url, storage_options, runs, tags, max_depth)


def read_text(path_or_url: PathOrUrl, *, storage_options: Mapping[str, Any] | str | None = None,
              runs: Sequence[str] | None = None, tags: Sequence[str] | None = None,
              max_depth: int | None = None) -> pd.DataFrame:
    """Every TensorBoard text step, whole: run, tag, step, wall_time, text."""
    return _frame("text", TEXT_COLUMNS, _text_rows, path_or_url, storage_options, runs, tags, max_depth)


def read_tensors(path_or_url: PathOrUrl, *, storage_options: Mapping[str, Any] | str | None = None,
                 runs: Sequence[str] | None = None, tags: Sequence[str] | None = None,
                 max_depth: int | None = None) -> pd.DataFrame:
    """Every MindSpore tensor step: run, tag, step, wall_time, dims (tuple), data_type, value (numpy array)."""
    return _frame("tensor", TENSOR_COLUMNS, _tensor_rows, path_or_url, storage_options, runs, tags, max_depth)


def read_runs(path_or_url: PathOrUrl, *, storage_options: Mapping[str, Any] | str | None = None,
              max_depth: int | None = None) -> pd.DataFrame:
    """The discovered runs: run (train_id), path, create_time, update_time, summary_files (count)."""
    pandas = _pandas()
    rows = [(r.train_id, storage.describe(r.path), r.create_time, r.update_time, len(r.summary_files))
            for r in list_runs(path_or_url, storage_options=storage_options, max_depth=max_depth)]
    return pandas.DataFrame.from_records(rows, columns=["run", "path", "create_time", "update_time",
                                                        "summary_files"])
