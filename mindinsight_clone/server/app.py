"""create_app: the Flask application factory. Nothing is created at import time."""

from __future__ import annotations

import logging

from flask import Flask

from mindinsight_clone.config import Settings
from mindinsight_clone.server import (
    auth,
    body_limit,
    error_handlers,
    routes_datavisual,
    routes_debugger,
    routes_export,
    routes_graphs,
    routes_health,
    routes_lineage,
    routes_models,
    routes_msprobe,
    routes_msprobe_compare,
    routes_msprobe_graph,
    routes_profiler,
    routes_scalar_views,
    routes_tags,
    routes_tensorboard,
    routes_ui,
    security,
    url_prefix,
)
from mindinsight_clone.server.json_provider import OrjsonProvider
from mindinsight_clone.server.logs import setup_app_logging
from mindinsight_clone.server.routing import LazyBuilderRule
from mindinsight_clone.server.services import EXTENSION_KEY, Services
from mindinsight_clone.store.data_manager import DataManager

log = logging.getLogger(__name__)

MAX_BODY_BYTES = 16 * 1024 * 1024  # request bodies, with or without Content-Length (413 beyond)
BLUEPRINTS = (routes_health, routes_datavisual, routes_tensorboard, routes_graphs, routes_lineage, routes_profiler,
              routes_debugger, routes_models, routes_export, routes_tags, routes_scalar_views,
              routes_msprobe, routes_msprobe_compare, routes_msprobe_graph, routes_ui)


def create_app(
    settings: Settings,
    data_manager: DataManager | None = None,
    *,
    start_background: bool = True,
    log_to_workspace: bool = False,
) -> Flask:
    """Build the app. A DataManager is made from settings unless one is injected (tests)."""
    app = Flask(__name__, static_folder=None)
    app.url_rule_class = LazyBuilderRule  # URL builders compiled on first use (server/routing.py)
    app.json = OrjsonProvider(app)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY_BYTES
    app.wsgi_app = body_limit.ChunkedBodyLimit(app.wsgi_app, MAX_BODY_BYTES)  # type: ignore[method-assign]
    app.wsgi_app = url_prefix.wrap(app.wsgi_app, settings.url_path_prefix)  # type: ignore[method-assign]
    auth.register(app, settings)  # first hook: nothing else runs for a request without the token
    app.before_request(body_limit.check)
    app.config["DEBUG"] = False
    if log_to_workspace:
        setup_app_logging(settings)
    manager = data_manager if data_manager is not None else DataManager(settings)
    app.extensions[EXTENSION_KEY] = Services(settings=settings, data_manager=manager)
    security.register(app, settings)
    error_handlers.register(app)
    for module in BLUEPRINTS:
        app.register_blueprint(module.bp)
    if start_background:
        manager.start()
    log.info("app created: summary base dir %s, reload interval %ss", manager.bases.describe(),
             settings.reload_interval)
    return app
