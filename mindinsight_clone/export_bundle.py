"""What goes into the export zip of selected runs (`GET datavisual/export`, issue 31); no Flask here.

Per run, in `runs/<run path>/` (the base dir itself, train id `./`, in `runs/_base_dir_/`):
`scalars.csv` (`run,tag,step,wall_time,value`, every step from the point store), `histograms.csv` (one row per
bucket: `run,tag,step,wall_time,left,right,width,count`), `text.jsonl` (one JSON object per text step, whole),
`hparams.json` (the `hparams?train_id=` answer) and `lineage.json` (the run's object of `lineagemgr/lineages`);
plus a top-level `manifest.json` (server version, time, runs, per kind counts, what was left out and why).

Each run is read again by the reader's lower layer (`reader._load`: the server's discovery result, loader and
parsers, through the storage seam, with every step kept), one run at a time, into a temporary workspace.
The zip is written to a non-seekable sink and handed out chunk by chunk: it is never whole in memory.
"""

from __future__ import annotations

import csv
import io
import json
import logging
import re
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import IO, Any

from mindinsight_clone import reader
from mindinsight_clone.errors import ParamMissError, ParamValueError
from mindinsight_clone.ingest.summary_watcher import RunInfo
from mindinsight_clone.ingest.values import Histogram, Text
from mindinsight_clone.plugins.scalars import csv_text
from mindinsight_clone.store.point_store import PointRoot
from mindinsight_clone.store.run_cache import RunCache
from mindinsight_clone.version import __version__

log = logging.getLogger(__name__)

KINDS = ("scalars", "histograms", "text", "hparams", "lineage")
LOADED_KINDS = frozenset(("scalars", "histograms", "text"))  # these need the run read again at full resolution
MAX_RUNS = 20  # runs per export: each is read again in full, one after another
ZIP_LEVEL = 1  # deflate level: as the server's gzip (GZIP_LEVEL), ~10 % bigger than level 6, much less CPU
BATCH_ROWS = 16_384  # CSV rows per write into the zip (and per chunk sent, about 100 KB compressed at most)
BASE_DIR_FOLDER = "_base_dir_"
NOT_EXPORTED = {"images": "binary; use datavisual/image/single-image",
                "tensors": "arrays; use datavisual/tensors or reader.read_tensors",
                "graphs, profiles, dumps": "not training series; use their own pages or APIs"}
_SPLIT = re.compile(r",(?=\./)")  # ids start with "./"; a name holding ",./" would have a "." component (invalid)

JsonLookup = Callable[[str], "dict[str, Any] | None"]


def parse_train_ids(raw: Iterable[str]) -> list[str]:
    """`./a,./b` (any number of such values) -> ["./a", "./b"], first occurrence kept; ParamMissError if none."""
    ids = [tid for value in raw for tid in _SPLIT.split(value) if tid]
    if not ids:
        raise ParamMissError("train_ids")
    unique = list(dict.fromkeys(ids))
    if len(unique) > MAX_RUNS:
        raise ParamValueError(f"'train_ids' should hold at most {MAX_RUNS} train ids per export.")
    return unique


def parse_kinds(raw: str | None) -> tuple[str, ...]:
    """`kinds=scalars,lineage` -> those kinds in KINDS order; absent or empty: all of them."""
    if not raw:
        return KINDS
    wanted = {k.strip() for k in raw.split(",") if k.strip()}
    unknown = sorted(wanted - set(KINDS))
    if unknown:
        raise ParamValueError(f"'kinds' should be a comma-separated subset of {', '.join(KINDS)}; "
                              f"unknown: {', '.join(unknown)}.")
    return tuple(k for k in KINDS if k in wanted) or KINDS


def folder_of(train_id: str) -> str:
    """The run's folder in the zip: `runs/<run path>` (`./` -> `runs/_base_dir_`)."""
    name = train_id.removeprefix("./").strip("/")
    return f"runs/{name or BASE_DIR_FOLDER}"


def file_name(now: datetime) -> str:
    return f"mindinsight-export-{now:%Y%m%d-%H%M%S}.zip"


@dataclass
class Sources:
    """Where the non-series kinds come from (the server's own answers, injected by the route)."""
    hparams: JsonLookup  # train_id -> the `hparams?train_id=` body
    lineage: JsonLookup  # train_id -> the run's `lineagemgr/lineages` object, or None without lineage


@dataclass
class _RunReport:
    train_id: str
    folder: str
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    left_out: list[dict[str, str]] = field(default_factory=list)

    def skip(self, kind: str, reason: str) -> None:
        self.left_out.append({"kind": kind, "reason": reason})


class _Sink(io.RawIOBase):
    """A write-only, non-seekable stream: zipfile writes data descriptors, and `drain` hands the bytes on."""

    def __init__(self) -> None:
        super().__init__()
        self._chunks: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self._chunks.append(chunk)
        return len(chunk)

    def drain(self) -> bytes:
        out = b"".join(self._chunks)
        self._chunks.clear()
        return out


# ------------------------------------------------------------------------------ rows of each kind
def _scalar_rows(cache: RunCache, tag: str) -> Iterator[list[Any]]:
    for step, wall_time, value in reader._scalar_rows(cache, tag):
        yield [step, wall_time, value]  # csv writes floats as repr: exact float64 round trip; nan / inf / -inf


def _histogram_rows(cache: RunCache, tag: str) -> Iterator[list[Any]]:
    for sample in cache.samples("histogram", tag):
        hist = sample.value
        if isinstance(hist, Histogram):
            for left, width, count in zip(hist.left.tolist(), hist.width.tolist(), hist.count.tolist(), strict=True):
                yield [sample.step, sample.wall_time, left, left + width, width, count]


CsvRows = Callable[[RunCache, str], Iterator[list[Any]]]
CSV_KINDS: dict[str, tuple[str, str, list[str], CsvRows]] = {
    "scalars": ("scalar", "scalars.csv", ["run", "tag", "step", "wall_time", "value"], _scalar_rows),
    "histograms": ("histogram", "histograms.csv",
                   ["run", "tag", "step", "wall_time", "left", "right", "width", "count"], _histogram_rows),
}


class _Bundle:
    """Writes one export into a zip over a `_Sink`; each method yields the bytes made so far."""

    def __init__(self, kinds: Sequence[str], sources: Sources, now: datetime) -> None:
        self.kinds, self.sources, self.now = kinds, sources, now
        self.sink = _Sink()
        self.zip = zipfile.ZipFile(self.sink, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL)
        self.reports: list[_RunReport] = []

    def _entry(self, name: str) -> IO[bytes]:
        return self.zip.open(name, "w", force_zip64=True)  # size unknown in advance; the zip's compression

    def _csv(self, report: _RunReport, kind: str, cache: RunCache) -> Iterator[bytes]:
        plugin, name, header, rows = CSV_KINDS[kind]
        tags = cache.tags(plugin)
        if not tags:
            report.skip(kind, f"the run has no {plugin} tags")
            return
        count = 0
        text = io.StringIO()  # rows are made here and handed to the zip entry BATCH_ROWS at a time
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(header)
        with self._entry(f"{report.folder}/{name}") as raw:
            run = csv_text(report.train_id)
            for tag in tags:
                cell = csv_text(tag)
                for row in rows(cache, tag):
                    writer.writerow([run, cell, *row])
                    count += 1
                    if count % BATCH_ROWS == 0:
                        yield self._flush(text, raw)
            yield self._flush(text, raw)
        report.files[kind] = {"file": name, "tags": len(tags), "rows": count}

    def _flush(self, text: io.StringIO, raw: IO[bytes]) -> bytes:
        raw.write(text.getvalue().encode())
        text.seek(0)
        text.truncate()
        return self.sink.drain()

    def _text(self, report: _RunReport, cache: RunCache) -> Iterator[bytes]:
        tags = cache.tags("text")
        if not tags:
            report.skip("text", "the run has no text tags")
            return
        count = 0
        with self._entry(f"{report.folder}/text.jsonl") as raw:
            for tag in tags:
                for sample in cache.samples("text", tag):
                    if isinstance(sample.value, Text):
                        raw.write(json.dumps({"run": report.train_id, "tag": tag, "step": sample.step,
                                              "wall_time": sample.wall_time, "text": sample.value.text},
                                             ensure_ascii=False).encode() + b"\n")
                        count += 1
                yield self.sink.drain()
        report.files["text"] = {"file": "text.jsonl", "tags": len(tags), "rows": count}

    def _json(self, report: _RunReport, kind: str, body: dict[str, Any] | None, reason: str) -> Iterator[bytes]:
        if not body:
            if not any(x["kind"] == kind for x in report.left_out):
                report.skip(kind, reason)
            return
        with self._entry(f"{report.folder}/{kind}.json") as raw:
            raw.write(json.dumps(body, ensure_ascii=False, indent=1, default=str).encode())
        count = len(body.get("sessions", [])) if kind == "hparams" else 1
        report.files[kind] = {"file": f"{kind}.json", "rows": count}
        yield self.sink.drain()

    def run(self, info: RunInfo, points: PointRoot, settings: Any) -> Iterator[bytes]:
        report = _RunReport(info.train_id, folder_of(info.train_id))
        self.reports.append(report)
        loaded = [k for k in self.kinds if k in LOADED_KINDS]
        if loaded:
            try:
                loader = reader._load(info, settings, points)
            except Exception as err:  # a run that cannot be read is reported in the manifest, not a broken zip
                log.exception("export: cannot read %s", info.train_id)
                for kind in loaded:
                    report.skip(kind, f"the run could not be read ({type(err).__name__})")
            else:
                try:
                    for kind in loaded:
                        if kind == "text":
                            yield from self._text(report, loader.cache)
                        else:
                            yield from self._csv(report, kind, loader.cache)
                finally:
                    loader.close()
        if "hparams" in self.kinds:
            hp = self._answer(report, "hparams", self.sources.hparams)
            yield from self._json(report, "hparams", hp if hp and hp.get("sessions") else None,
                                  "no hparams sessions in or below the run")
        if "lineage" in self.kinds:
            yield from self._json(report, "lineage", self._answer(report, "lineage", self.sources.lineage),
                                  "the run has no lineage")

    @staticmethod
    def _answer(report: _RunReport, kind: str, lookup: JsonLookup) -> dict[str, Any] | None:
        """The server's answer for the run; a failure is said in the manifest (the zip is already on its way)."""
        try:
            return lookup(report.train_id)
        except Exception as err:
            log.exception("export: %s of %s", kind, report.train_id)
            report.skip(kind, f"the server could not answer ({type(err).__name__})")
            return None

    def manifest(self) -> dict[str, Any]:
        counts = {k: sum(r.files.get(k, {}).get("rows", 0) for r in self.reports) for k in self.kinds}
        return {"server": "mindinsight-clone", "version": __version__, "created": self.now.isoformat(),
                "kinds": list(self.kinds), "counts": counts,
                "runs": [{"train_id": r.train_id, "folder": r.folder, "files": r.files, "left_out": r.left_out}
                         for r in self.reports],
                "not_exported": NOT_EXPORTED,
                "notes": {"scalars": "every step (full resolution); wall_time in seconds; nan/inf written as such",
                          "csv": "text cells starting with = + - @ tab or CR get a leading ' (CSV injection)"}}

    def finish(self) -> bytes:
        with self._entry("manifest.json") as raw:
            raw.write(json.dumps(self.manifest(), ensure_ascii=False, indent=1).encode())
        self.zip.close()
        return self.sink.drain()


def stream_zip(runs: Sequence[RunInfo], kinds: Sequence[str], sources: Sources,
               now: datetime | None = None) -> Iterator[bytes]:
    """The zip of `runs`, as chunks (one or more per tag and file); the manifest is the last entry."""
    bundle = _Bundle(kinds, sources, now or datetime.now(timezone.utc))
    with tempfile.TemporaryDirectory(prefix="mindinsight-export-") as workspace:
        settings = reader.reader_settings(workspace)
        points = PointRoot(workspace)
        for info in runs:
            for chunk in bundle.run(info, points, settings):
                if chunk:
                    yield chunk
    yield bundle.finish()
