"""The parts of a JSON array file (`json_parts`) as an fsspec file system for DuckDB: `seam://<token>/<i>` is part i.

A module of its own so that fsspec is imported when DuckDB first reads a trace, not with the web app."""

from __future__ import annotations

from typing import Any

from fsspec.spec import AbstractFileSystem

from mindinsight_clone.analyzers.profiler.engine.json_parts import Part, PartFile
from mindinsight_clone.ingest.storage import Location


class PartsFileSystem(AbstractFileSystem):  # type: ignore[misc]
    """One load's parts as an fsspec file system for DuckDB: `seam://<token>/<i>` is part i."""

    protocol = "seam"
    cachable = False

    def __init__(self, location: Location, token: str, parts: list[Part]) -> None:
        super().__init__()
        self.location, self.token, self.parts = location, token, parts

    @property
    def urls(self) -> list[str]:
        return [f"seam://{self.token}/{i}" for i in range(len(self.parts))]

    def _part(self, path: str) -> Part:
        token, _, index = self._strip_protocol(path).strip("/").partition("/")
        if token != self.token or not index.isdigit() or int(index) >= len(self.parts):
            raise FileNotFoundError(path)
        return self.parts[int(index)]

    def info(self, path: str, **kwargs: Any) -> dict[str, Any]:
        return {"name": self._strip_protocol(path), "size": self._part(path).size, "type": "file"}

    def ls(self, path: str, detail: bool = True, **kwargs: Any) -> list[Any]:
        info = self.info(path)
        return [info] if detail else [info["name"]]

    def _open(self, path: str, mode: str = "rb", **kwargs: Any) -> Any:
        return PartFile(self.location, self._part(path))
