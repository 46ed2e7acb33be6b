"""Schemathesis over mindinsight_clone/server/openapi.yaml against the real app on the MindSpore fixtures.

The app is built with create_app over ../shared/fixtures/mindspore (read in place, never written: the
workspace is a temp dir), reloaded, a few runs are put in the detail cache and reloaded again, and the
document is loaded from the app itself (`GET /v1/mindinsight/openapi.json` through schemathesis's WSGI
support: Werkzeug's client, no socket). Schemathesis's engine (what `st run` uses) then runs its examples,
coverage and fuzzing phases over every operation, in positive and negative mode. So that a good share of
the requests reach real data, real values are fed in two ways: schemathesis dictionaries (run ids, tags,
graph node names, interval ids for any parameter of that name) and a schema-scoped
`before_generate_query` hook that mixes in consistent fragments per path (a run with one of *its* scalar
tags, a graph tag with its node names, a profiler dir...).

Checks on every response: no 5xx (`not_a_server_error`), the status code is documented, the Content-Type
is documented, required headers (ETag) are present, and the body matches the documented schema (errors
too: `{"error_code": ^[0-9A-F]{8}$, "error_msg"}`). Failures are listed with schemathesis's curl
reproducer. KNOWN_ROUTE_BUGS are route bugs reported to the lead; each has a strict xfail reproducer
below, so fixing the route turns it into an XPASS failure that says to delete the entry.

Run length: `MINDINSIGHT_SCHEMATHESIS_EXAMPLES` sets `max_examples` per operation (default 10: the CI
smoke run: ~30 s on an idle 2-core box, ~90 s on a loaded one; the coverage phase adds a fixed set of
boundary cases per operation).
A longer run, e.g.:
    MINDINSIGHT_SCHEMATHESIS_EXAMPLES=300 .venv/bin/python -m pytest tests/integration/test_schemathesis.py -s
(-s prints per-operation status counts). The default run is derandomized (the same cases every time);
`MINDINSIGHT_SCHEMATHESIS_RANDOM=1` draws new cases (what a long run should use).
"""

from __future__ import annotations

import collections
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import schemathesis
from flask import Flask
from hypothesis import strategies as st
from schemathesis.config import SchemathesisConfig
from schemathesis.engine import events

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app
from tests.conftest import FIXTURES, require_shared

MAX_EXAMPLES = int(os.environ.get("MINDINSIGHT_SCHEMATHESIS_EXAMPLES", "10"))
RANDOM = os.environ.get("MINDINSIGHT_SCHEMATHESIS_RANDOM", "") not in ("", "0")
API = "/v1/mindinsight"
CACHED_RUNS = ["./lenet_collector", "./summary_ops", "./landscape", "./profiler_cpu", "./lineage_raw_metrics",
               "./truncated", "./crc_corrupt", "./record_api"]
PROFILER_RUNS = ["./profiler_cpu", "./profiler_only_legacy_api"]
CHECKS = ["not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_headers_conformance", "response_schema_conformance"]


@dataclass(frozen=True)
class KnownBug:
    """A route bug the document is right about; reported to the lead, to delete once fixed."""

    operation: str
    check: str
    message: str  # a substring of schemathesis's failure message


KNOWN_ROUTE_BUGS: list[KnownBug] = []  # none open; add one here (with a strict xfail reproducer) when found


def build_app(workspace: str) -> Flask:
    app = create_app(settings_for_tests(summary_base_dir=str(FIXTURES), workspace=workspace, reload_interval=0),
                     start_background=False)
    manager = app.extensions["mindinsight_clone"].data_manager
    manager.reload()
    manager.cache_runs(CACHED_RUNS)
    manager.reload()
    return app


@dataclass
class RealData:
    train_ids: list[str]
    tags: dict[str, dict[str, list[str]]]  # run -> plugin -> tags
    node_names: dict[tuple[str, str], list[str]]  # (run, graph tag) -> node and scope names
    interval_ids: list[str]
    image_steps: dict[tuple[str, str], list[int]] = field(default_factory=dict)

    def all_tags(self) -> list[str]:
        return sorted({t for plugins in self.tags.values() for tags in plugins.values() for t in tags})

    def all_names(self) -> list[str]:
        return sorted({n for names in self.node_names.values() for n in names})


def real_data(app: Flask) -> RealData:
    client = app.test_client()
    jobs = client.get(f"{API}/datavisual/train-jobs?limit=999").get_json()["train_jobs"]
    data = RealData(sorted({job["train_id"] for job in jobs} | {"./"}), {}, {}, [])
    for tid in CACHED_RUNS:
        data.tags[tid] = client.get(f"{API}/datavisual/plugins", query_string={"train_id": tid}).get_json()["plugins"]
        for tag in data.tags[tid]["image"]:
            meta = client.get(f"{API}/datavisual/image/metadata", query_string={"train_id": tid, "tag": tag})
            data.image_steps[(tid, tag)] = [m["step"] for m in meta.get_json()["metadatas"]] + [-1]
        for plugin, mode in (("graph", "normal"), ("optimized_graph", "optimize")):
            for tag in data.tags[tid][plugin]:
                answer = client.get(f"{API}/datavisual/graphs/nodes/all",
                                    query_string={"train_id": tid, "tag": tag, "mode": mode}).get_json()
                names: set[str] = set()
                for node in answer["all_nodes_detail"][:30]:
                    parts = node["name"].split("/")
                    names.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
                data.node_names[(tid, tag)] = sorted(names)
    intervals = client.get(f"{API}/datavisual/landscape/intervals?train_id=./landscape").get_json()["intervals"]
    data.interval_ids = [i["id"] for i in intervals] + ["0"]
    return data


def real_queries(data: RealData) -> dict[str, list[dict[str, Any]]]:
    """Consistent query fragments per path (schemathesis draws each parameter independently)."""
    out: dict[str, list[dict[str, Any]]] = collections.defaultdict(list)
    for tid, plugins in data.tags.items():
        for tag in plugins["scalar"]:
            out["/datavisual/scalar/metadata"] += [{"train_id": tid, "tag": tag},
                                                    {"train_id": tid, "tag": tag, "downsample": 5}]
            out["/datavisual/scalars"].append({"train_id": [tid, "./landscape"], "tag": [tag]})
        for tag in plugins["image"]:
            out["/datavisual/image/metadata"].append({"train_id": tid, "tag": tag})
            out["/datavisual/image/single-image"] += [{"train_id": tid, "tag": tag, "step": step}
                                                       for step in data.image_steps[(tid, tag)]]
        for tag in plugins["histogram"]:
            out["/datavisual/histograms"].append({"train_id": tid, "tag": tag})
        for tag in plugins["tensor"]:
            for detail in (None, "stats", "histogram"):
                out["/datavisual/tensors"].append({"train_id": [tid], "tag": [tag], **({"detail": detail} if detail
                                                                                        else {})})
            out["/datavisual/tensors"] += [{"train_id": [tid], "tag": [tag], "detail": "data", "step": 1,
                                            "dims": dims} for dims in ("[0,:]", "[:,:]", "[1,2]")]
        for plugin in ("scalar", "image", "graph", "tensor", "histogram", "loss_landscape"):
            out["/datavisual/single-job"].append({"train_id": tid, "plugin_name": plugin})
        out["/datavisual/plugins"].append({"train_id": tid})
        out["/datavisual/landscape/intervals"].append({"train_id": tid})
    for interval in data.interval_ids:
        out["/datavisual/landscape/landscapes"] += [
            {"train_id": ["./landscape"], "type": "interval", "interval_id": interval},
            {"train_id": ["./landscape", "./summary_ops", "x"], "type": "final"}]
    for (tid, tag), names in data.node_names.items():
        mode = "optimize" if tag.endswith("(optimized)") else "normal"
        for name in names:
            base = {"train_id": tid, "tag": tag, "mode": mode, "name": name}
            out["/datavisual/graphs/nodes"] += [base, {**base, "limit": 3, "offset": 1}]
            out["/datavisual/graphs/single-node"].append(base)
            out["/datavisual/graphs/nodes/all"].append(base)
            out["/datavisual/graphs/nodes/names"].append({**base, "search": name.rsplit("/", 1)[-1][:4]})
    for tid in data.train_ids:
        out["/datasets/dataset_graph"].append({"train_id": tid})
        out["/lineagemgr/lineages"].append({"train_id": tid})
    style_a = [{"train_id": tid, "profile": "profiler"} for tid in PROFILER_RUNS]
    style_b = [{"dir": tid} for tid in PROFILER_RUNS]
    cluster = [{"train_id": tid} for tid in PROFILER_RUNS]
    for path in ("devices", "profile_info", "summary/propose", "ops/search", "minddata-pipeline/op-queue",
                 "minddata-pipeline/queue", "queue_info", "minddata_op", "process_summary",
                 "minddata-cpu-utilization-summary", "overview", "memory-usage"):
        out[f"/profile/{path}"] += style_a
    for path in ("timeline-summary", "timeline", "training-trace/graph", "training-trace/target-time-info",
                 "msprof_timeline_option", "msprof_timeline", "memory-summary", "memory-graphics",
                 "memory-breakdowns", "overview", "memory-usage"):
        out[f"/profile/{path}"] += style_b
    for path in ("summary/cluster-propose", "flops-summary", "flops-scope", "cluster-step-trace-summary",
                 "cluster-peak-memory", "cluster-flops", "search-cluster-communication", "search-cluster-link",
                 "communication-data", "dirs"):
        out[f"/profile/{path}"] += cluster
    return out


def load_schema(app: Flask, data: RealData, max_examples: int) -> Any:
    def bind(name: str, probability: float = 0.7) -> dict[str, Any]:
        return {"dictionary": name, "probability": probability}

    config = SchemathesisConfig.from_dict({
        "dictionaries": {
            "train_ids": {"values": data.train_ids},
            "tags": {"values": data.all_tags()},
            "node_names": {"values": data.all_names()},
            "profiles": {"values": ["profiler"]},
            "interval_ids": {"values": data.interval_ids},
        },
        "parameters": {
            "query.train_id": bind("train_ids"),
            "query.dir": bind("train_ids"),
            "query.tag": bind("tags"),
            "query.name": bind("node_names"),
            "query.profile": bind("profiles", 0.8),
            "query.interval_id": bind("interval_ids"),
            "body.train_ids[*]": bind("train_ids"),
            "body.dir": bind("train_ids"),
        },
        "generation": {"mode": "all", "max-examples": max_examples, "deterministic": not RANDOM,
                       "database": "none"},
        "phases": {"stateful": {"enabled": False}},
        "checks": {"enabled": False, **{name: {"enabled": True} for name in CHECKS}},
        # Werkzeug's test client does not decode gzip (the server compresses bodies >= 1 KB when asked).
        "headers": {"Accept-Encoding": "identity"},
        "workers": 1,
    })
    schema = schemathesis.openapi.from_wsgi(f"{API}/openapi.json", app, config=config)
    fragments = real_queries(data)

    @schema.hook("before_generate_query")
    def _mix_in_real_queries(context: Any, strategy: Any) -> Any:
        choices = fragments.get(context.operation.path) if context.operation is not None else None
        if not choices:
            return strategy
        real = st.sampled_from(choices)
        return st.one_of(strategy, st.tuples(strategy, real).map(
            lambda pair: {**(pair[0] if isinstance(pair[0], dict) else {}), **pair[1]}))

    return schema


@dataclass
class Finding:
    operation: str
    check: str
    title: str
    message: str
    reproducer: str

    def is_known(self) -> bool:
        return any(bug.operation == self.operation and bug.check == self.check and bug.message in self.message
                   for bug in KNOWN_ROUTE_BUGS)

    def __str__(self) -> str:
        return f"{self.operation} [{self.check}] {self.title}\n{self.message}\n  reproduce: {self.reproducer}"


@dataclass
class Outcome:
    findings: dict[tuple[str, str, str], Finding] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    cases: int = 0
    statuses: dict[str, collections.Counter[int]] = field(
        default_factory=lambda: collections.defaultdict(collections.Counter))


def run_engine(schema: Any, on_event: Callable[[Any], None] | None = None) -> Outcome:
    outcome = Outcome()
    for event in schemathesis.engine.from_schema(schema).execute():
        if on_event is not None:
            on_event(event)
        if isinstance(event, events.ScenarioFinished):
            recorder = event.recorder
            outcome.cases += len(recorder.cases)
            for interaction in recorder.interactions.values():
                if interaction.response is not None:
                    outcome.statuses[recorder.label][interaction.response.status_code] += 1
            for nodes in recorder.checks.values():
                for node in nodes:
                    info = node.failure_info
                    if info is None:
                        continue
                    failure = info.failure
                    message = str(getattr(failure, "message", "") or "")
                    key = (recorder.label, node.name, message.split("\n", 1)[0])
                    outcome.findings.setdefault(key, Finding(recorder.label, node.name, failure.title, message,
                                                             info.code_sample))
        elif isinstance(event, events.NonFatalError):
            outcome.errors.append(f"{event.label}: {event.info.format()}")
        elif isinstance(event, events.FatalError):
            outcome.errors.append(f"fatal: {event.exception!r}")
    return outcome


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory: pytest.TempPathFactory) -> Flask:
    require_shared(FIXTURES)
    return build_app(str(tmp_path_factory.mktemp("schemathesis_ws")))


@pytest.fixture(scope="module")
def data(fuzz_app: Flask) -> RealData:
    return real_data(fuzz_app)


@pytest.mark.slow
@pytest.mark.timeout(max(300, 12 * MAX_EXAMPLES))  # a long run scales its own pytest-timeout
def test_every_operation_conforms_to_the_document(fuzz_app: Flask, data: RealData) -> None:
    schema = load_schema(fuzz_app, data, MAX_EXAMPLES)
    outcome = run_engine(schema)
    for label, counts in sorted(outcome.statuses.items()):
        print(f"{label}: {dict(sorted(counts.items()))}")
    assert not outcome.errors, "\n".join(outcome.errors)
    new = [f for f in outcome.findings.values() if not f.is_known()]
    assert not new, f"{len(new)} finding(s):\n\n" + "\n\n".join(map(str, new))
    documented = {f"{op.method.upper()} {op.path}" for op in (r.ok() for r in schema.get_all_operations())}
    reached = {label for label, counts in outcome.statuses.items() if counts[200]}
    # Real data is reached on most operations (guards the dictionaries and hook from silently failing). The msprobe
    # operations have no data in this base dir (MindSpore's fixtures); tests/integration/test_msprobe_dumps_api.py
    # answers them from msprobe's real output.
    fed = {label for label in documented if "/msprobe/" not in label}
    assert len(reached & fed) >= 0.6 * len(fed), sorted(fed - reached)
    assert outcome.cases > 50 * len(documented)


def test_real_data_feeds_every_area(data: RealData) -> None:
    fragments = real_queries(data)
    assert "loss/auto/scalar" in data.tags["./lenet_collector"]["scalar"] and len(data.interval_ids) >= 2
    assert any("/" in name for name in data.all_names())
    for path in ("/datavisual/scalar/metadata", "/datavisual/tensors", "/datavisual/graphs/single-node",
                 "/datavisual/image/single-image", "/profile/ops/search", "/profile/timeline", "/profile/dirs"):
        assert fragments[path], path


# ------------------------------------------------------------------ route bugs schemathesis found (fixed)
def test_lineage_type_selecting_no_part_keeps_summary_dir(fuzz_app: Flask) -> None:
    client = fuzz_app.test_client()
    body = client.post(f"{API}/lineagemgr/lineages", json={"lineage_type": {"in": []}}).get_json()
    assert body["object"] and all("summary_dir" in obj for obj in body["object"])


def test_optimizer_train_ids_are_strings(fuzz_app: Flask) -> None:
    client = fuzz_app.test_client()
    body = client.post(f"{API}/optimizer/targets/search", json={"lineage_type": {"in": []}}).get_json()
    assert body["metadata"]["train_ids"] and all(isinstance(t, str) for t in body["metadata"]["train_ids"])
