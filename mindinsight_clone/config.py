"""Settings: each one declared once, with its type, default and help (and so a flag of `start`).

Precedence: built-in defaults < --config file < MINDINSIGHT_* environment < command-line flag.
`start` resolves the settings and hands them to the gunicorn workers through MINDINSIGHT_*
environment variables (as MindInsight does); the app factory reads them back with `load_settings`.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import runpy
from collections.abc import Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

ENV_PREFIX = "MINDINSIGHT_"


@dataclass(frozen=True)
class Setting:
    name: str
    type: type
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    retired: str = ""  # a MindInsight flag accepted so its command lines start: what it no longer does
    alias_of: str = ""  # MindInsight's name for another setting: a value given sets that setting

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()

    def parse(self, raw: Any, source: str) -> Any:
        """Cast `raw` to this setting's type and check its range; `source` names where it came from."""
        try:
            if self.type is bool:
                value: Any = raw if isinstance(raw, bool) else str(raw).strip().lower() in ("1", "true", "yes")
            elif self.type is int:
                if isinstance(raw, bool) or (isinstance(raw, float) and not raw.is_integer()):
                    raise ValueError
                value = int(str(raw).strip()) if not isinstance(raw, int) else raw
            elif self.type is float:
                value = float(raw)
            elif isinstance(raw, Mapping):  # e.g. storage_options given as a mapping in a --config file
                value = json.dumps(dict(raw))
            else:
                value = str(raw)
        except (TypeError, ValueError):
            raise SettingError(f"{self.name} from {source} must be {self.type.__name__}, got {raw!r}") from None
        if self.minimum is not None and value < self.minimum:
            raise SettingError(f"{self.name} from {source} must be >= {self.minimum:g}, got {value}")
        if self.maximum is not None and value > self.maximum:
            raise SettingError(f"{self.name} from {source} must be <= {self.maximum:g}, got {value}")
        return value


class SettingError(ValueError):
    """A setting has a value of the wrong type or out of range."""


def _home(*parts: str) -> str:
    return str(Path.home().joinpath(*parts))


SETTINGS: tuple[Setting, ...] = (
    Setting("port", int, 8080, "Port the web server listens on (1-65535).", minimum=1, maximum=65535),
    Setting("host", str, "127.0.0.1", "Address to bind; anything but loopback prints a warning."),
    Setting("summary_base_dir", str, "", "Directory whose subdirectories are training runs (default: cwd); a URL "
            "(s3://bucket/prefix, hdfs://..., gs://...) reads it through fsspec. Several, named: "
            "name1=path1,name2=s3://bucket/x (train ids become ./<name>/<run>)."),
    Setting("storage_options", str, "{}", "JSON object passed to the fsspec backend of a URL base dir (e.g. "
            '{"endpoint_url": "https://obs.example.com", "anon": true}). For s3:// the botocore timeouts and '
            'retries default to {"config_kwargs": {"connect_timeout": 5, "read_timeout": 30, "retries": '
            '{"max_attempts": 3, "mode": "standard"}}}; keys given here win.'),
    Setting("url_path_prefix", str, "", "Serve the UI at <prefix>/ and the API at <prefix>/v1/mindinsight/ "
            "(e.g. /team/mi, behind a reverse proxy); anything outside it answers 404. Segments of "
            "[a-zA-Z0-9_-.], not . or .. (MindInsight's flag)."),
    Setting("auth_token", str, "", "Access token: every request needs it (?token= once in the browser, then a "
            "cookie; 'Authorization: Bearer <token>' for scripts); 'generate' makes a random one, printed in the "
            "start link. Empty: no token."),
    Setting("frame_ancestors", str, "", "Other pages allowed to show the UI in a frame: CSP frame-ancestors "
            "sources, space-separated (e.g. 'http://localhost:* vscode-webview:' for a notebook on this machine; the "
            "notebook magic sets it for the servers it starts). Empty: only this server's own pages."),
    Setting("run_filter", str, "", "Regular expression on run paths (train ids without './'): only runs it "
            "matches (re.search) are listed and loaded. Empty: every run."),
    Setting("reload_interval", int, 3, "Seconds between rescans of the summary base dir; 0 loads once.",
            minimum=0, maximum=300),
    Setting("workspace", str, _home("mindinsight-clone"), "Directory for logs, pid files and lineage notes."),
    Setting("allowed_hosts", str, "", "Comma-separated extra Host header names accepted (DNS-rebinding guard); "
            "loopback names and the bind host are always accepted; '*' accepts any."),
    Setting("workers", int, 1, "Gunicorn worker processes (keep 1: caches live in the worker).", minimum=1,
            maximum=64),
    Setting("threads", int, 8, "Threads per gunicorn worker.", minimum=1, maximum=256),
    Setting("timeout", int, 60, "Seconds before gunicorn restarts a silent worker.", minimum=5, maximum=3600),
    Setting("client_timeout", int, 30, "Seconds a client has to send a request's head, and then its body, in all "
            "(slow-client guard): a head not complete in time closes the connection, a body answers 408. Heads are "
            "read without holding a request thread.", minimum=1, maximum=3600),
    Setting("max_run_count", int, 10_000, "Most runs listed; the most recently updated are kept (the API and the "
            "log say how many are left out). MindInsight: 999.", minimum=1, maximum=100000),
    Setting("max_cached_runs", int, 0, "Most runs whose data is kept in memory (LRU); 0 = no count limit, "
            "--cache-memory-mb decides (MindInsight: 15).", minimum=0, maximum=100000),
    Setting("cache_memory_mb", int, 1024, "Memory budget (estimated MB) of the runs kept in memory; the most "
            "recently used runs that fit stay cached (always at least one).", minimum=1, maximum=1_048_576),
    Setting("point_memory_mb", int, 512, "Memory (MB) for the full-resolution points of scalar series up to 8,192 "
            "steps, all runs together; series beyond it, and longer ones, keep their points in files under "
            "<workspace>/cache/points (a wide run loads several times slower from there).", minimum=0,
            maximum=1_048_576),
    Setting("profiler_cache_mb", int, 2048, "Disk budget (MB) of parsed profiler tables kept as Parquet in "
            "<workspace>/cache/profiler, so a restart or another replica on the same workspace does not parse a big "
            "kernel_details.csv / trace_view.json again; least recently used dropped first; 0 = keep none.",
            minimum=0, maximum=1_048_576),
    Setting("max_depth", int, 1, "Directory levels below the summary base dir searched for runs "
            "(1 = MindInsight's: direct subdirectories only; e.g. 4 finds ./job/output/summary/rank_0).",
            minimum=1, maximum=16),
    Setting("max_tags_per_run", int, 100_000, "Most tags kept per run, all plugins together: a safety net; memory "
            "is bounded by --cache-memory-mb, which counts each tag (~1 KB plus its points). A run of 10,000 "
            "scalar tags (large-model training) is kept whole. MindInsight: 300 (set it to keep its behaviour).",
            minimum=1, maximum=1_000_000),
    Setting("max_tensor_tags", int, 6, "Most tensor tags kept per run.", minimum=1, maximum=1000),
    Setting("max_graph_tags", int, 10, "Most graph tags kept per run.", minimum=1, maximum=1000),
    Setting("max_graph_nodes", int, 500_000, "Most nodes (with their name scopes) of one graph drawn as a scope "
            "tree (graphs, debugger and model graph views); a larger graph is refused with a clear error. Built "
            "graphs kept in memory hold at most twice this in all.", minimum=1, maximum=100_000_000),
    Setting("max_graph_node_size", int, 100_000, "MindInsight's name of --max-graph-nodes, with its range: a value "
            "given sets --max-graph-nodes (a flag beats the environment, which beats a config file; both in one "
            "place must agree).", minimum=1, maximum=2_000_000, alias_of="max_graph_nodes"),
    Setting("scalar_samples", int, 1000, "Steps kept per scalar tag (reservoir).", minimum=1, maximum=1_000_000),
    Setting("image_samples", int, 10, "Steps kept per image tag (reservoir).", minimum=1, maximum=10_000),
    Setting("histogram_samples", int, 50, "Steps kept per histogram tag (reservoir).", minimum=1,
            maximum=100_000),
    Setting("tensor_samples", int, 20, "Steps kept per tensor tag (reservoir).", minimum=1, maximum=10_000),
    Setting("text_samples", int, 10, "Steps kept per TensorBoard text tag (reservoir).", minimum=1, maximum=10_000),
    Setting("pr_curve_samples", int, 100, "Steps kept per TensorBoard PR-curve tag (reservoir).", minimum=1,
            maximum=10_000),
    Setting("audio_samples", int, 10, "Steps kept per TensorBoard audio tag (reservoir).", minimum=1,
            maximum=10_000),
    Setting("mesh_samples", int, 100, "Steps kept per TensorBoard mesh tag (reservoir).", minimum=1,
            maximum=10_000),
    Setting("max_text_tags", int, 1000, "Most TensorBoard text tags kept per run (Megatron writes one per "
            "argument); they do not count toward max_tags_per_run.", minimum=1, maximum=100_000),
    Setting("text_max_chars", int, 100_000, "Longest TensorBoard text value kept and sent (characters); a longer "
            "one is cut, and the API marks it truncated with its length.", minimum=100, maximum=100_000_000),
    Setting("embedding_max_points", int, 20_000, "Most points of one TensorBoard projector embedding sent (the "
            "first ones); the API says when more exist.", minimum=1, maximum=10_000_000),
    Setting("max_record_bytes", int, 500_000_000,
            "Largest record (and .pb graph file) accepted; a longer record stops the file, a larger graph file is "
            "not read.",
            minimum=1024, maximum=2**40),
    Setting("profiler_db_spool_mb", int, 4096, "Disk (MB) in <workspace>/cache/profiler-db for copies of remote "
            "Ascend profiler databases (SQLite reads a local file); least recently used copies go first.",
            minimum=1, maximum=1_048_576),
    Setting("decode_helper_mb", int, 16, "A reload with at least this many MB of local scalar records for the "
            "helper (TensorBoard and VisualDL files, the small first blocks of MindSpore files: a big MindSpore "
            "block decodes in the worker) decodes them in a helper process on another core, beside the web worker "
            "(stopped when the load is read); 0 = never.", minimum=0, maximum=1_048_576),
    Setting("enable_debugger", bool, False, "MindInsight's online debugger switch, accepted (True/False/1/0) but "
            "retired: MindSpore >= 2.5 has no debugger client; dumps are read offline from the summary base dir.",
            retired="the online debugger is gone (MindSpore >= 2.5 has no debugger client, MindInsight removed it "
            "in 2024); nothing listens for a training job. Dumps under the summary base dir are still read by "
            "the offline Debugger page."),
    Setting("debugger_port", int, 50051, "MindInsight's online debugger port (1-65535, not --port), accepted but "
            "retired: nothing listens on it.", minimum=1, maximum=65535,
            retired="nothing listens on this port (no online debugger)."),
    Setting("offline_debugger_mem_limit", int, 16384, "MindInsight's offline debugger memory limit (MB, "
            "6144-2147483647), accepted but retired: dumps are read in bounded windows and chunks.",
            minimum=6144, maximum=2147483647,
            retired="not applied: dumps are read in bounded windows and chunks, without MindSpore's DbgServices."),
    Setting("max_offline_debugger_session_num", int, 2, "MindInsight's offline debugger session count (1-2), "
            "accepted but retired: there are no sessions, every request names its dump.", minimum=1, maximum=2,
            retired="not applied: there are no debugger sessions; every request names its dump."),
    Setting("log_max_bytes", int, 50 * 1024 * 1024, "Size at which a log file is rotated.", minimum=1024),
    Setting("log_backup_count", int, 10, "Rotated log files kept.", minimum=0, maximum=1000),
)

BY_NAME: dict[str, Setting] = {s.name: s for s in SETTINGS}


@dataclass(frozen=True)
class Settings:
    port: int
    host: str
    summary_base_dir: str
    storage_options: str
    url_path_prefix: str
    auth_token: str
    frame_ancestors: str
    run_filter: str
    reload_interval: int
    workspace: str
    allowed_hosts: str
    workers: int
    threads: int
    timeout: int
    client_timeout: int
    max_run_count: int
    max_cached_runs: int
    cache_memory_mb: int
    point_memory_mb: int
    profiler_cache_mb: int
    max_depth: int
    max_tags_per_run: int
    max_tensor_tags: int
    max_graph_tags: int
    max_graph_nodes: int
    scalar_samples: int
    image_samples: int
    histogram_samples: int
    tensor_samples: int
    text_samples: int
    pr_curve_samples: int
    audio_samples: int
    mesh_samples: int
    max_text_tags: int
    text_max_chars: int
    embedding_max_points: int
    max_record_bytes: int
    profiler_db_spool_mb: int
    decode_helper_mb: int
    enable_debugger: bool
    debugger_port: int
    offline_debugger_mem_limit: int
    max_offline_debugger_session_num: int
    log_max_bytes: int
    log_backup_count: int

    def to_env(self) -> dict[str, str]:
        """The MINDINSIGHT_* variables that carry these settings to the gunicorn workers."""
        return {BY_NAME[f.name].env: str(getattr(self, f.name)) for f in fields(self)}


def read_config_file(spec: str) -> dict[str, Any]:
    """Read `file:/path/x.py`, `file:/path/x.yaml` or `python:pkg.module` into {setting: value}.

    In a Python file or module, upper-case names that match a setting (PORT, RELOAD_INTERVAL...) count.
    """
    if spec.startswith("python:"):
        module = importlib.import_module(spec[len("python:"):])
        raw: Mapping[str, Any] = vars(module)
    elif spec.startswith("file:"):
        path = Path(spec[len("file:"):]).expanduser()
        if not path.is_file():
            raise SettingError(f"config file {path} does not exist or is not a file")
        if path.suffix in (".yaml", ".yml"):
            import yaml  # only for --config files: every process of the server imports this module at start

            loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            if not isinstance(loaded, dict):
                raise SettingError(f"config file {path} must hold a mapping of settings")
            raw = loaded
        elif path.suffix == ".py":
            raw = runpy.run_path(str(path))
        else:
            raise SettingError(f"config file {path} must end in .py, .yaml or .yml")
    else:
        raise SettingError("--config must be file:/path/x.py, file:/path/x.yaml or python:pkg.module")
    python_source = not spec.endswith((".yaml", ".yml"))
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str) or (python_source and not key.isupper()):
            continue
        name = key.lower().replace("-", "_")
        if name in BY_NAME:
            values[name] = value
        elif not python_source:
            raise SettingError(f"unknown setting {key!r} in {spec}")
    return values


# Where a value came from; a higher rank wins.
DEFAULT_RANK, CONFIG_RANK, ENV_RANK, FLAG_RANK = range(4)
Sources = dict[str, tuple[int, str]]


def _collect(cli: Mapping[str, Any] | None, config: str | None, env: Mapping[str, str]) -> tuple[dict[str, Any],
                                                                                                 Sources]:
    """Raw values by precedence (defaults < config file < environment < CLI) and where each given one came from."""
    values: dict[str, Any] = {s.name: s.default for s in SETTINGS}
    sources: Sources = {}
    if config:
        for name, raw in read_config_file(config).items():
            values[name], sources[name] = raw, (CONFIG_RANK, f"--config {config}")
    for s in SETTINGS:
        if s.env in env:
            values[s.name], sources[s.name] = env[s.env], (ENV_RANK, s.env)
    for name, raw in (cli or {}).items():
        if raw is not None:
            values[name], sources[name] = raw, (FLAG_RANK, f"--{name.replace('_', '-')}")
    return values, sources


def _apply_aliases(values: dict[str, Any], sources: Sources) -> None:
    """A value given under an alias sets its target, unless the target was given with a higher precedence."""
    for alias in SETTINGS:
        if not alias.alias_of or alias.name not in sources:
            continue
        rank, where = sources[alias.name]
        value = alias.parse(values[alias.name], where)
        target = BY_NAME[alias.alias_of]
        target_rank, target_where = sources.get(target.name, (DEFAULT_RANK, "defaults"))
        if rank == target_rank and target.parse(values[target.name], target_where) != value:
            raise SettingError(f"{where} and {target_where} set the same limit to different values; give one")
        if rank >= target_rank:
            values[target.name], sources[target.name] = value, (rank, where)


def given_retired(
    cli: Mapping[str, Any] | None = None,
    config: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[tuple[Setting, str]]:
    """The retired MindInsight settings given (by flag, environment or config file), with where from."""
    _, sources = _collect(cli, config, os.environ if environ is None else environ)
    return [(s, sources[s.name][1]) for s in SETTINGS if s.retired and s.name in sources]


def _check_debugger_port(parsed: Mapping[str, Any]) -> None:
    """MindInsight's check, made only when the (retired) debugger is enabled."""
    if parsed["enable_debugger"] and parsed["debugger_port"] == parsed["port"]:
        raise SettingError(f"Port not available error. Detail: The ports for debugger and web page are both "
                           f"{parsed['port']},please use another port as debugger-port.")


def resolve(
    cli: Mapping[str, Any] | None = None,
    config: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> Settings:
    """Merge defaults < config file < environment < CLI flags into checked Settings."""
    values, sources = _collect(cli, config, os.environ if environ is None else environ)
    _apply_aliases(values, sources)
    parsed = {s.name: s.parse(values[s.name], sources.get(s.name, (DEFAULT_RANK, "defaults"))[1])
              for s in SETTINGS if not s.alias_of}
    _check_debugger_port(parsed)
    parsed["summary_base_dir"] = join_base_dirs(base_dirs(parsed["summary_base_dir"]))
    storage_options(parsed["storage_options"])  # refuse a malformed value now, not in the worker
    parsed["url_path_prefix"] = url_path_prefix(parsed["url_path_prefix"])
    _check_run_filter(parsed["run_filter"])
    parsed["frame_ancestors"] = frame_ancestors(parsed["frame_ancestors"])
    parsed["workspace"] = os.path.realpath(os.path.expanduser(parsed["workspace"]))
    return Settings(**parsed)


BASE_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def split_base_dir_spec(value: str) -> list[tuple[str, str]] | None:
    """`name1=path1,name2=s3://...` as (name, path) pairs, or None when `value` is one plain path.

    A spec only when every comma-separated part is `<name>=...` with a name of `[A-Za-z0-9_.-]` and the whole
    value is not an existing local path: `/data/a=b`, `./a=b`, `s3://bucket/x=1` and an existing dir `a=b`
    stay plain paths. Paths inside a spec cannot contain a comma."""
    if "=" not in value or (not is_url(value) and os.path.exists(os.path.expanduser(value))):
        return None
    pairs = []
    for part in value.split(","):
        name, sep, path = part.partition("=")
        if not sep or not BASE_NAME.fullmatch(name):
            return None
        pairs.append((name, path))
    return pairs


def _normalize_base_dir(value: str) -> str:
    """A base dir as the workers get it: a URL without its trailing slash, a local path made real."""
    if is_url(value):
        return value.rstrip("/") if not value.rstrip("/").endswith(":/") else value
    return os.path.realpath(os.path.expanduser(value or os.getcwd()))


def base_dirs(value: str) -> list[tuple[str | None, str]]:
    """The summary base dirs of the `summary_base_dir` setting, normalized: [(None, path)] for one plain dir
    (default: cwd), else [(name, path), ...] in the order given. SettingError on a bad name or a repeated one."""
    pairs = split_base_dir_spec(value)
    if pairs is None:
        return [(None, _normalize_base_dir(value))]
    seen: set[str] = set()
    for name, path in pairs:
        if name in (".", ".."):
            raise SettingError(f"summary_base_dir: a base dir name cannot be {name!r}")
        if name in seen:
            raise SettingError(f"summary_base_dir: the name {name!r} is given twice")
        if not path:
            raise SettingError(f"summary_base_dir: {name}= names no directory")
        seen.add(name)
    return [(name, _normalize_base_dir(path)) for name, path in pairs]


def join_base_dirs(bases: list[tuple[str | None, str]]) -> str:
    """The setting's value for `bases` (what `base_dirs` parses back to the same list)."""
    if len(bases) == 1 and bases[0][0] is None:
        return bases[0][1]
    return ",".join(f"{name}={path}" for name, path in bases)


PREFIX_SEGMENT = re.compile(r"^[a-zA-Z0-9_\-.]+$")


def url_path_prefix(value: str) -> str:
    """MindInsight's check of --url-path-prefix (each segment [a-zA-Z0-9_-.], not . or ..), plus the leading
    slash MindInsight forgot to require (`mi/v2` crashed its worker); '' or '/' mean no prefix. Normalised to
    '/a/b' (no trailing slash)."""
    text = value.strip()
    if text in ("", "/"):
        return ""
    segments = text.strip("/").split("/")
    if not text.startswith("/") or any(not PREFIX_SEGMENT.match(s) or s in (".", "..") for s in segments):
        raise SettingError("--url-path-prefix value is invalid url path prefix (give /segment/segment, each of "
                           "letters, digits, _ - . and not . or ..)")
    return "/" + "/".join(segments)


FRAME_SOURCE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:(//(\*\.)?[a-zA-Z0-9.\-\[\]:]*(:(\d+|\*))?/?)?$")


def frame_ancestors(value: str) -> str:
    """The frame_ancestors setting as checked CSP sources (`scheme:` or `scheme://host[:port|:*]`), one space
    apart; anything else (a ';' that would end the directive, quotes, a bare '*') is refused."""
    sources = value.split()
    bad = [s for s in sources if not FRAME_SOURCE.match(s)]
    if bad:
        raise SettingError(f"frame_ancestors: {bad[0]!r} is not a scheme: or scheme://host[:port] source")
    return " ".join(sources)


def _check_run_filter(pattern: str) -> None:
    try:
        re.compile(pattern)
    except re.error as err:
        raise SettingError(f"run_filter is not a valid regular expression: {err}") from None


def is_url(value: str) -> bool:
    """`scheme://...` (a remote base dir) rather than a local path; `file://` counts as a URL too."""
    head, sep, _ = value.partition("://")
    return bool(sep) and len(head) > 1 and head.isascii() and head.replace("+", "").replace("-", "").isalnum()


def storage_options(text: str) -> dict[str, Any]:
    """The `storage_options` setting as a dict (a JSON object); SettingError otherwise."""
    try:
        value = json.loads(text or "{}")
    except ValueError as exc:
        raise SettingError(f"storage_options must be a JSON object: {exc}") from None
    if not isinstance(value, dict):
        raise SettingError("storage_options must be a JSON object, e.g. {\"endpoint_url\": \"http://...\"}")
    return value


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    """Settings as a gunicorn worker sees them: defaults < environment.

    `start` folded any alias into its target's variable; an alias variable left in the inherited environment
    (e.g. MINDINSIGHT_MAX_GRAPH_NODE_SIZE beaten by a --max-graph-nodes flag) is ignored here.
    """
    env = os.environ if environ is None else environ
    aliases = {s.env for s in SETTINGS if s.alias_of}
    return resolve(environ={key: value for key, value in env.items() if key not in aliases})


def settings_for_tests(**overrides: Any) -> Settings:
    """Defaults with overrides, ignoring the process environment (for create_app in tests)."""
    return resolve(cli=overrides, environ={})

