"""`GET /v1/mindinsight/datavisual/export`: selected runs as one zip, streamed as it is written (issue 31).

Thin: check the train ids (as the other datavisual routes: 50545005 for an unknown or malformed id), the kinds
and the run limit before anything is sent, then stream `export_bundle.stream_zip`. docs/api.md, "Export".
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, stream_with_context

from mindinsight_clone.analyzers.lineage import LineageService
from mindinsight_clone.errors import TrainJobNotExistError
from mindinsight_clone.ingest.summary_watcher import RunInfo
from mindinsight_clone.plugins import hparams
from mindinsight_clone.server import params, routes_lineage
from mindinsight_clone.server.deferred import DeferredModule
from mindinsight_clone.server.routes_datavisual import IN_DATA_MANAGER, P, _dm, _known_id
from mindinsight_clone.server.routes_tensorboard import _runs_under
from mindinsight_clone.server.services import services

if TYPE_CHECKING:
    from mindinsight_clone import export_bundle
else:  # imported by the first export (server/deferred.py): a worker starts serving without it
    export_bundle = DeferredModule("mindinsight_clone.export_bundle")

bp = Blueprint("export", __name__, url_prefix="/v1/mindinsight")


def _lineage_of(train_id: str) -> dict[str, Any] | None:
    """The run's object in `POST lineagemgr/lineages` (None: the run has no lineage)."""
    service = services().extras.get(routes_lineage.SERVICE_KEY)
    if not isinstance(service, LineageService):
        return None
    found = service.search({"summary_dir": {"eq": train_id}})["object"]
    return found[0] if found else None


def _hparams_of(train_id: str) -> dict[str, Any]:
    """What `datavisual/hparams?train_id=` answers (sessions of the run and the runs below it)."""
    return hparams.sessions(_runs_under(train_id))


def _runs(raw_ids: list[str]) -> list[RunInfo]:
    runs = []
    for raw in export_bundle.parse_train_ids(raw_ids):
        run = _dm().run(_known_id(raw))
        if run is None:  # removed between the check and now
            raise TrainJobNotExistError(IN_DATA_MANAGER)
        runs.append(run)
    return runs


@bp.get(f"{P}/export")
def export_route() -> Any:
    raw = params.arg_list("train_ids")
    kinds = export_bundle.parse_kinds(params.arg("kinds"))
    runs = _runs(raw)  # every error is raised here, before the first byte of the zip
    now = datetime.now(timezone.utc)
    sources = export_bundle.Sources(hparams=_hparams_of, lineage=_lineage_of)
    chunks = stream_with_context(export_bundle.stream_zip(runs, kinds, sources, now))
    resp = Response(chunks, mimetype="application/zip", direct_passthrough=True)
    resp.headers["Content-Disposition"] = f'attachment; filename="{export_bundle.file_name(now)}"'
    resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp
