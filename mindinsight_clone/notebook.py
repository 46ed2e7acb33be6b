"""`%load_ext mindinsight_clone` and the `%mindinsight_clone` line magic (docs/notebook.md).

`%mindinsight_clone [start flags] [--proxy MODE] [--height PX]` reuses a running server that `start` launched
with the same workspace and summary base dir, else starts one in the background, and shows it inline in an
iframe. `%mindinsight_clone list` lists the workspace's servers, `%mindinsight_clone stop [--port P]` stops one.
The flags are the `start` command's own (cli.start's click options), resolved as `start` resolves them.

How the notebook's browser reaches the server (`--proxy`, default `auto`):
* `direct`: `http://localhost:<port><prefix>/` (VS Code forwards localhost; JupyterLab or Notebook on this machine);
* `server-proxy`: through jupyter-server-proxy's `<base_url>proxy/absolute/<port>/`; a server the magic starts
  gets that path as its --url-path-prefix, so redirects and the token cookie stay under the proxy;
* `server-proxy-strip`: jupyter-server-proxy's `<base_url>proxy/<port><prefix>/` (the proxy strips its part);
* `url`: the template in MINDINSIGHT_CLONE_PROXY_URL, `%PORT%` replaced (as TENSORBOARD_PROXY_URL).
`auto`: `url` when the template is set; `server-proxy` under JupyterHub (JUPYTERHUB_SERVICE_PREFIX) or when
jupyter_server_proxy is importable, except in VS Code (VSCODE_PID); `direct` otherwise.
"""

from __future__ import annotations

import dataclasses
import datetime
import html
import importlib.util
import os
import shlex
import socket
import sys
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlsplit

import click

from mindinsight_clone import cli
from mindinsight_clone.config import SettingError, Settings, url_path_prefix
from mindinsight_clone.ingest.bases import describe_setting
from mindinsight_clone.server import lifecycle

MAGIC = "mindinsight_clone"
PROXY_URL_ENV = "MINDINSIGHT_CLONE_PROXY_URL"
HUB_PREFIX_ENV = "JUPYTERHUB_SERVICE_PREFIX"
PROXY_MODES = ("auto", "direct", "server-proxy", "server-proxy-strip", "url")
MODE_NAMES = {
    "direct": "direct to localhost",
    "server-proxy": "through jupyter-server-proxy, absolute",
    "server-proxy-strip": "through jupyter-server-proxy",
    "url": f"through the {PROXY_URL_ENV} template",
}
WILDCARD_HOSTS = ("", "0.0.0.0", "::")
# Pages that may frame a server the magic starts in direct mode (Chromium refuses the source http://[::1]:*).
LOCAL_NOTEBOOK_FRAMERS = "http://localhost:* http://127.0.0.1:* https://localhost:* vscode-webview:"


# --- where the browser finds the server ------------------------------------------------------


def choose_mode(requested: str, environ: Mapping[str, str]) -> str:
    """The proxy mode for `--proxy requested` in this kernel's environment."""
    if requested != "auto":
        return requested
    if environ.get(PROXY_URL_ENV):
        return "url"
    if environ.get(HUB_PREFIX_ENV):
        return "server-proxy"  # a hub's browser never reaches the single-user server's localhost
    if environ.get("VSCODE_PID"):
        return "direct"  # VS Code forwards localhost; its webview has no Jupyter server to proxy through
    if importlib.util.find_spec("jupyter_server_proxy") is not None:
        return "server-proxy"  # works on this machine and through a tunnel to the notebook's port alike
    return "direct"


def jupyter_base_url(environ: Mapping[str, str]) -> str:
    """The notebook server's base URL as the browser sees it: JupyterHub's service prefix, else '/'."""
    base = environ.get(HUB_PREFIX_ENV) or "/"
    return "/" + base.strip("/") + "/" if base.strip("/") else "/"


def absolute_prefix(base_url: str, port: int) -> str:
    """The --url-path-prefix under which jupyter-server-proxy's /proxy/absolute/<port>/ reaches the server."""
    return f"{base_url}proxy/absolute/{port}"


def proxy_template(environ: Mapping[str, str]) -> str:
    template = environ.get(PROXY_URL_ENV, "")
    if "%PORT%" not in template:
        raise click.UsageError(f"--proxy url needs {PROXY_URL_ENV} set to a URL with %PORT%, e.g. "
                               "https://host/user/me/proxy/%PORT%/")
    return template


def direct_host(host: str) -> str:
    if host in WILDCARD_HOSTS or lifecycle.is_loopback(host):
        return "localhost"
    return f"[{host}]" if ":" in host else host


def viewer_url(record: lifecycle.PidRecord, mode: str, environ: Mapping[str, str]) -> str:
    """The iframe's src for `record` in `mode` (with `?token=` when the server has a token)."""
    prefix = record.url_path_prefix
    if mode == "url":
        url = proxy_template(environ).replace("%PORT%", str(record.port)).rstrip("/") + prefix + "/"
    elif mode in ("server-proxy", "server-proxy-strip"):
        base = jupyter_base_url(environ)
        # /proxy/absolute/<port>/ passes the path on as it is; /proxy/<port>/ strips its part (the prefix stays)
        absolute = prefix == absolute_prefix(base, record.port)
        url = prefix + "/" if absolute else f"{base}proxy/{record.port}{prefix}/"
    else:
        url = f"http://{direct_host(record.host)}:{record.port}{prefix}/"
    return url + (f"?token={quote(record.auth_token, safe='')}" if record.auth_token else "")


def iframe_html(url: str, height: int) -> str:
    src = html.escape(url, quote=True)
    return (f'<iframe class="mindinsight-clone" src="{src}" width="100%" height="{height}" frameborder="0" '
            f'allow="clipboard-write; fullscreen"></iframe>\n'
            f'<p><a href="{src}" target="_blank" rel="noopener">Open mindinsight-clone in a new tab</a></p>')


# --- start or reuse ---------------------------------------------------------------------------


def port_is_free(host: str, port: int) -> bool:
    try:
        lifecycle.check_port_free(host, port)
    except lifecycle.LifecycleError:
        return False
    return True


def free_port(host: str) -> int:
    """A port the OS says is free now (bound and released; the server binds it moments later)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host if host not in WILDCARD_HOSTS else "", 0))
        return int(sock.getsockname()[1])


def find_reusable(settings: Settings, given: Mapping[str, Any]) -> lifecycle.PidRecord | None:
    """A live server of the workspace with the same summary base dir (and the port, host, prefix, token given)."""
    for record in lifecycle.list_servers(settings.workspace):
        if record.summary_base_dir != settings.summary_base_dir:
            continue
        if given.get("port") is not None and record.port != settings.port:
            continue
        if given.get("host") is not None and record.host != settings.host:
            continue
        if given.get("url_path_prefix") is not None and record.url_path_prefix != settings.url_path_prefix:
            continue
        if given.get("auth_token") not in (None, lifecycle.GENERATE_TOKEN) and record.auth_token != settings.auth_token:
            continue
        return record
    return None


def settings_to_start(settings: Settings, given: Mapping[str, Any], mode: str, environ: Mapping[str, str]) -> Settings:
    """`settings` adjusted for the notebook: a free port when none was given and the default one is taken; for
    `server-proxy` the absolute proxy path as prefix (unless one is set); the Host names the proxy forwards."""
    changes: dict[str, Any] = {}
    if given.get("port") is None and not port_is_free(settings.host, settings.port):
        changes["port"] = free_port(settings.host)
    port = changes.get("port", settings.port)
    if mode == "server-proxy" and not settings.url_path_prefix:
        try:
            changes["url_path_prefix"] = url_path_prefix(absolute_prefix(jupyter_base_url(environ), port))
        except SettingError:
            raise click.UsageError(f"the notebook's base URL {jupyter_base_url(environ)!r} cannot be a "
                                   "--url-path-prefix; use --proxy server-proxy-strip") from None
    if mode == "direct" and not settings.frame_ancestors:
        # the notebook page (localhost:8888, a VS Code webview) is another origin than the server: let it frame us
        changes["frame_ancestors"] = LOCAL_NOTEBOOK_FRAMERS
    if not settings.allowed_hosts:
        # jupyter-server-proxy forwards the browser's Host header: under JupyterHub it is the hub's public name,
        # unknown here (the browser is not on this machine, so a DNS-rebinding page cannot reach this loopback)
        if mode.startswith("server-proxy") and environ.get(HUB_PREFIX_ENV):
            changes["allowed_hosts"] = "*"
        elif mode == "url":
            name = urlsplit(proxy_template(environ)).hostname
            if name and not lifecycle.is_loopback(name):
                changes["allowed_hosts"] = name
    return dataclasses.replace(settings, **changes) if changes else settings


def started_ago(record: lifecycle.PidRecord) -> str:
    return str(datetime.timedelta(seconds=max(0, int(time.time() - record.create_time))))


def stop_hint(record: lifecycle.PidRecord, workspace: str) -> str:
    return cli.stop_command(record.port, workspace).replace("mindinsight-clone", "%" + MAGIC, 1)


# --- the magic --------------------------------------------------------------------------------


def _start_command() -> click.Command:
    """`start`'s options (not --foreground) plus the notebook's own."""
    params = [param for param in cli.start.params if param.name != "foreground"]
    params += [
        click.Option(["--proxy"], type=click.Choice(PROXY_MODES), default="auto", show_default=True,
                     help="How the notebook's browser reaches the server (docs/notebook.md)."),
        click.Option(["--height"], type=click.IntRange(100, None), default=800, show_default=True,
                     help="Height of the inline view in pixels."),
    ]
    return click.Command(f"%{MAGIC}", params=params, help="Show mindinsight-clone inline; start it if needed. "
                         f"Also: %{MAGIC} list, %{MAGIC} stop [--port P] [--workspace W].")


def _stop_command(with_port: bool) -> click.Command:
    params = [param for param in cli.stop.params if with_port or param.name != "port"]
    return click.Command(f"%{MAGIC} {'stop' if with_port else 'list'}", params=params)


def _parse(command: click.Command, args: list[str]) -> dict[str, Any] | None:
    """The options of `args`, or None when click printed help or an error."""
    try:
        with command.make_context(command.name, args) as ctx:
            return dict(ctx.params)
    except click.exceptions.Exit:
        return None  # --help was shown


def show(args: list[str], environ: Mapping[str, str]) -> None:
    from IPython.display import HTML, display

    values = _parse(_start_command(), args)
    if values is None:
        return
    config, mode, height = values.pop("config"), choose_mode(values.pop("proxy"), environ), values.pop("height")
    settings = cli._settings_or_exit(values, config)  # `start`'s own resolution and messages
    for note in cli._retired_notes(values, config):
        print(f"WARNING: {note}", file=sys.stderr)
    record = find_reusable(settings, values)
    if record is not None:
        print(f"Reusing mindinsight-clone on port {record.port} (pid {record.pid}), started {started_ago(record)} "
              f"ago. (Use '{stop_hint(record, settings.workspace)}' to stop it.)")
    else:
        settings = lifecycle.with_token(settings_to_start(settings, values, mode, environ))
        print("Launching mindinsight-clone...")
        record = lifecycle.start_background(settings)
        print(f"Started mindinsight-clone on port {record.port} (pid {record.pid}), summary base dir "
              f"{describe_setting(record.summary_base_dir)}. (Use '{stop_hint(record, settings.workspace)}' "
              "to stop it.)")
    url = viewer_url(record, mode, environ)
    print(f"Shown {MODE_NAMES[mode]}: {url}")
    stripped = record.url_path_prefix != absolute_prefix(jupyter_base_url(environ), record.port)
    if record.auth_token and mode.startswith("server-proxy") and stripped:
        print("Note: through /proxy/<port>/ the token link's redirect leaves the proxy's path; stop this server and "
              "let --proxy server-proxy start one under /proxy/absolute/<port>/ (docs/notebook.md).", file=sys.stderr)
    display(HTML(iframe_html(url, height)))


def list_servers(args: list[str]) -> None:
    values = _parse(_stop_command(with_port=False), args)
    if values is None:
        return
    workspace = cli._settings_or_exit({"workspace": values["workspace"]}, values["config"]).workspace
    records = lifecycle.list_servers(workspace)
    if not records:
        print(f"No known mindinsight-clone instances running (workspace {workspace}).")
        return
    print(f"Known mindinsight-clone instances (workspace {workspace}):")
    for record in records:
        print(f"  - port {record.port}: summary base dir {describe_setting(record.summary_base_dir)} "
              f"(started {started_ago(record)} ago; pid {record.pid})")


def stop(args: list[str]) -> None:
    values = _parse(_stop_command(with_port=True), args)
    if values is None:
        return
    settings = cli._settings_or_exit({"workspace": values["workspace"], "port": values["port"]},
                                     values["config"])
    port = values["port"]
    if port is None:  # the one server of the workspace, as a notebook user means it
        records = lifecycle.list_servers(settings.workspace)
        if not records:
            print(f"No known mindinsight-clone instances running (workspace {settings.workspace}).")
            return
        if len(records) > 1:
            ports = ", ".join(str(r.port) for r in records)
            print(f"Several mindinsight-clone instances run (ports {ports}): give --port.", file=sys.stderr)
            return
        port = records[0].port
    record = lifecycle.stop(settings.workspace, port)
    print(f"Stopped mindinsight-clone on port {record.port} (pid {record.pid}).")


def mindinsight_clone_magic(line: str) -> None:
    """%mindinsight_clone [start flags] [--proxy MODE] [--height PX] | list | stop [--port P] (--help: options)"""
    try:
        args = shlex.split(line)
        if args[:1] == ["list"]:
            list_servers(args[1:])
        elif args[:1] == ["stop"]:
            stop(args[1:])
        else:
            show(args, os.environ)
    except click.ClickException as err:
        print(f"Error: {err.format_message()}", file=sys.stderr)
    except (lifecycle.LifecycleError, ValueError) as err:
        print(f"Error: {err}", file=sys.stderr)


def load_ipython_extension(ipython: Any) -> None:
    ipython.register_magic_function(mindinsight_clone_magic, magic_kind="line", magic_name=MAGIC)
