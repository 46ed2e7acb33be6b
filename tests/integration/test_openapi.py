"""mindinsight_clone/server/openapi.yaml: a valid OpenAPI 3.0 document, in step with the app's routes, served.

Validation uses the OpenAPI 3.0 meta-schema that schemathesis ships (checked with jsonschema_rs, its
dependency; no extra validator package), plus what the meta-schema cannot see: every `$ref` resolves,
operationIds are unique, every operation documents 200 and 500 with the error schema, and the error
schema is what the app really sends for 400/404/405.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import schemathesis
import yaml
from flask import Flask
from flask.testing import FlaskClient

from mindinsight_clone.config import settings_for_tests
from mindinsight_clone.server.app import create_app

API = "/v1/mindinsight"
DOCUMENT = Path(__file__).resolve().parents[2] / "mindinsight_clone" / "server" / "openapi.yaml"
METHODS = ("get", "post", "put", "delete", "patch")


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    document: dict[str, Any] = yaml.safe_load(DOCUMENT.read_text(encoding="utf-8"))
    return document


@pytest.fixture
def app(tmp_path: Path) -> Flask:
    (tmp_path / "base").mkdir()
    settings = settings_for_tests(summary_base_dir=str(tmp_path / "base"), workspace=str(tmp_path / "ws"))
    app = create_app(settings, start_background=False)
    app.extensions["mindinsight_clone"].data_manager.reload()  # loaded: unknown runs do not exist
    return app


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def _operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, item in spec["paths"].items()
            for method, op in item.items() if method in METHODS]


def _resolve(spec: dict[str, Any], ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = spec
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for value in node.values() for r in _refs(value)]
    if isinstance(node, list):
        return [r for value in node for r in _refs(value)]
    return []


def _error_schema(spec: dict[str, Any]) -> jsonschema_rs.Validator:
    return jsonschema_rs.Draft4Validator(spec["components"]["schemas"]["Error"])


# ------------------------------------------------------------------------------ validity
def test_document_is_valid_openapi_30(spec: dict[str, Any]) -> None:
    assert re.fullmatch(r"3\.0\.\d+", spec["openapi"])
    schemathesis.openapi.from_dict(spec).validate()  # raises on any meta-schema violation


def test_invalid_document_is_refused() -> None:
    """The validator above really validates (guards against a silently permissive check)."""
    with pytest.raises(jsonschema_rs.ValidationError):
        schemathesis.openapi.from_dict({"openapi": "3.0.3", "info": {"title": "x"}, "paths": {}}).validate()


def test_every_ref_resolves(spec: dict[str, Any]) -> None:
    refs = set(_refs(spec))
    assert refs
    for ref in refs:
        _resolve(spec, ref)  # KeyError names the broken reference


def test_every_component_is_used(spec: dict[str, Any]) -> None:
    refs = set(_refs(spec))
    unused = [f"#/components/{kind}/{name}" for kind, items in spec["components"].items()
              for name in items if f"#/components/{kind}/{name}" not in refs]
    # NotFound/MethodNotAllowed describe answers to undocumented paths/methods (info.description).
    assert set(unused) <= {"#/components/responses/NotFound", "#/components/responses/MethodNotAllowed"}, unused


def test_operations_are_complete(spec: dict[str, Any]) -> None:
    ids = [op["operationId"] for _, _, op in _operations(spec)]
    assert len(ids) == len(set(ids)), "duplicate operationId"
    for path, method, op in _operations(spec):
        where = f"{method.upper()} {path}"
        assert op.get("summary") and op.get("tags"), where
        responses = op["responses"]
        assert "200" in responses, where
        assert responses.get("500") == {"$ref": "#/components/responses/ServerError"}, where
        if "400" in responses:
            assert responses["400"] == {"$ref": "#/components/responses/BadRequest"}, where
        for param in op.get("parameters", []):
            param = _resolve(spec, param["$ref"]) if "$ref" in param else param
            assert "schema" in param, (where, param["name"])


def test_schemas_compile(spec: dict[str, Any]) -> None:
    """Every component schema is a usable JSON Schema (Draft 4, what OpenAPI 3.0 schemas extend)."""
    for name, schema in spec["components"]["schemas"].items():
        wrapped = {**schema, "components": spec["components"]}  # local $refs resolve against the wrapper
        jsonschema_rs.Draft4Validator(wrapped)
        assert name


# ------------------------------------------------------------------------------ in step with the app
def _flask_operations(app: Flask) -> set[tuple[str, str]]:
    out = set()
    for rule in app.url_map.iter_rules():
        if not rule.rule.startswith(f"{API}/"):
            continue
        path = re.sub(r"<(?:[^:<>]+:)?([^<>]+)>", r"{\1}", rule.rule.removeprefix(API))
        out |= {(path, m.lower()) for m in (rule.methods or set()) - {"HEAD", "OPTIONS"}}
    return out


def test_every_route_is_documented_and_every_documented_path_exists(app: Flask, spec: dict[str, Any]) -> None:
    assert [s["url"] for s in spec["servers"]] == [API]
    routes = _flask_operations(app)
    documented = {(path, method) for path, method, _ in _operations(spec)}
    assert routes, "no routes under /v1/mindinsight"
    assert routes - documented == set(), "routes missing from openapi.yaml"
    assert documented - routes == set(), "documented operations the app does not serve"


# ------------------------------------------------------------------------------ served
def test_document_is_served_as_yaml_and_json(client: FlaskClient, spec: dict[str, Any]) -> None:
    as_yaml = client.get(f"{API}/openapi.yaml")
    assert as_yaml.status_code == 200 and as_yaml.mimetype == "application/yaml"
    assert as_yaml.get_data(as_text=True) == DOCUMENT.read_text(encoding="utf-8")
    as_json = client.get(f"{API}/openapi.json")
    assert as_json.status_code == 200 and as_json.mimetype == "application/json"
    assert as_json.get_json() == spec


def test_shipped_as_package_data() -> None:
    pyproject = (DOCUMENT.parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"server/openapi.yaml"' in pyproject


# ------------------------------------------------------------------------------ error shape is the real one
@pytest.mark.parametrize(("method", "path", "status", "code"), [
    ("get", "/datavisual/train-jobs?limit=0", 400, "50540002"),
    ("get", "/datavisual/scalar/metadata?train_id=./nope&tag=x", 400, "50545005"),
    ("get", "/no/such/path", 404, "50545001"),
    ("post", "/health", 405, "50545002"),
    ("patch", "/datavisual/train-jobs", 405, "50545002"),
])
def test_error_responses_match_the_error_schema(client: FlaskClient, spec: dict[str, Any], method: str, path: str,
                                                status: int, code: str) -> None:
    response = client.open(f"{API}{path}", method=method.upper())
    assert response.status_code == status
    body = response.get_json()
    _error_schema(spec).validate(body)
    assert body["error_code"] == code
