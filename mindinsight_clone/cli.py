"""`mindinsight-clone start|stop|parse-summary`: the only code that reads argv.

Every setting in config.SETTINGS is a flag of `start`; flags left out fall back to the environment
(MINDINSIGHT_*), then the --config file, then the built-in default.
"""

from __future__ import annotations

import logging
import os
import shlex
import sys
from collections.abc import Callable
from typing import Any

import click

from mindinsight_clone.config import BY_NAME, SETTINGS, Setting, SettingError, base_dirs, given_retired, resolve
from mindinsight_clone.ingest import storage
from mindinsight_clone.ingest.bases import describe_setting
from mindinsight_clone.server import lifecycle
from mindinsight_clone.version import __version__

CONFIG_HELP = "Settings file: file:/path/x.py, file:/path/x.yaml or python:pkg.module."


class MindInsightValue(click.ParamType):
    """A MindInsight flag kept for its command lines: MindInsight's parsing and error messages (rc 2)."""

    def __init__(self, setting: Setting) -> None:
        self.setting = setting
        self.name = setting.type.__name__

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        flag = "--" + self.setting.name.replace("_", "-")
        if self.setting.type is bool:
            if str(value).lower() in ("true", "1", "false", "0"):
                return str(value).lower() in ("true", "1")
            raise click.UsageError(f"argument {flag}: invalid enable_debugger_string value: {value!r}", ctx)
        try:
            number = int(value)
        except ValueError:
            raise click.UsageError(f"argument {flag}: invalid int value: {value!r}", ctx) from None
        lo, hi = int(self.setting.minimum or 0), int(self.setting.maximum or 0)
        if not lo <= number <= hi:
            default = f", default is {self.setting.default}" if self.setting.alias_of else ""
            raise click.UsageError(f"{flag} should be chosen from {lo} to {hi}{default}", ctx)
        return number


def _click_type(setting: Setting) -> Any:
    if setting.retired or setting.alias_of:
        return MindInsightValue(setting)
    if setting.type is int:
        lo = int(setting.minimum) if setting.minimum is not None else None
        hi = int(setting.maximum) if setting.maximum is not None else None
        return click.IntRange(lo, hi)
    return setting.type


def _shown_default(setting: Setting) -> str:
    if setting.name == "summary_base_dir":
        return "current directory"
    if setting.name == "workspace":
        return "~/mindinsight-clone"
    if setting.alias_of:
        return f"--{setting.alias_of.replace('_', '-')}"
    return str(setting.default) if setting.default != "" else "none"


def setting_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a command with one option per setting (defaults None: precedence is resolved later)."""
    for setting in reversed(SETTINGS):
        func = click.option(
            f"--{setting.name.replace('_', '-')}",
            setting.name,
            type=_click_type(setting),
            default=None,
            show_default=_shown_default(setting),
            help=f"{setting.help} [env: {setting.env}]",
        )(func)
    return func


def _settings_or_exit(cli_values: dict[str, Any], config: str | None) -> Any:
    try:
        return resolve(cli=cli_values, config=config)
    except SettingError as err:
        raise click.UsageError(str(err)) from None
    except (OSError, SyntaxError, ImportError, ValueError) as err:
        raise click.UsageError(f"could not read --config {config}: {err}") from None


class _Group(click.Group):
    """Also answers to MindInsight's spelling of a command (`parse_summary`), without listing it twice."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return super().get_command(ctx, cmd_name) or super().get_command(ctx, cmd_name.replace("_", "-"))


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 110})
@click.version_option(__version__, prog_name="mindinsight-clone")
def main() -> None:
    """mindinsight-clone: view MindSpore summary, lineage and profiler data in the browser."""


@main.command()
@setting_options
@click.option("--config", "config", default=None, show_default="none", help=CONFIG_HELP)
@click.option("--foreground", is_flag=True, default=False, show_default=True,
              help="Run attached to this terminal instead of in the background.")
def start(config: str | None, foreground: bool, **values: Any) -> None:
    """Start the server in the background and wait until it answers."""
    settings = lifecycle.with_token(_settings_or_exit(values, config))  # `--auth-token generate` made here
    retired = _retired_notes(values, config)
    for note in retired:
        click.secho(f"WARNING: {note}", fg="yellow", err=True)
    if not lifecycle.is_loopback(settings.host):
        click.secho(f"WARNING: {_exposure_warning(settings.host, bool(settings.auth_token))}", fg="red", bold=True,
                    err=True)
    click.echo(f"Workspace: {settings.workspace}")
    shown = describe_setting(settings.summary_base_dir)
    click.echo(f"Summary base dir{'s' if len(base_dirs(settings.summary_base_dir)) > 1 else ''}: {shown}")
    try:
        if retired:
            _log_notes(settings, retired)
        if foreground:
            click.echo(f"Web address: {lifecycle.login_link(settings)} (foreground; Ctrl+C stops)")
            sys.exit(lifecycle.run_foreground(settings))
        record = lifecycle.start_background(settings)
    except lifecycle.LifecycleError as err:
        click.echo(f"Error: {err}", err=True)
        sys.exit(err.exit_code)
    click.echo(f"Web address: {lifecycle.login_link(settings)}")
    click.echo(f"Logs: {settings.workspace}/log/")
    click.echo(f"mindinsight-clone started (pid {record.pid}). Stop it with: "
               f"{stop_command(settings.port, settings.workspace)}")


def _exposure_warning(host: str, has_token: bool) -> str:
    """What binding to a non-loopback address means, with or without --auth-token."""
    if has_token:
        return (f"binding to {host} exposes the server to the network, protected by the access token only; over "
                "plain HTTP the token, its cookie and your training data travel unencrypted: put a TLS reverse "
                "proxy in front (docs/security.md). Set --allowed-hosts to the names clients will use.")
    return (f"binding to {host} exposes your training data to the network without authentication. Use --host "
            "127.0.0.1 unless you really mean it, or set --auth-token; set --allowed-hosts to the names clients "
            "will use.")


def _retired_notes(cli_values: dict[str, Any], config: str | None) -> list[str]:
    """One line per retired MindInsight flag given: what it no longer does."""
    return [f"{where} is accepted for MindInsight command lines but retired: {setting.retired}"
            for setting, where in given_retired(cli_values, config)]


def _log_notes(settings: Any, notes: list[str]) -> None:
    """Put the notes in the app log too; a workspace we cannot write is reported by the start that follows."""
    from mindinsight_clone.server.logs import setup_app_logging  # here: only when there is something to log

    try:
        setup_app_logging(settings)
    except OSError:
        return
    for note in notes:
        logging.getLogger("mindinsight_clone.cli").warning("%s", note)


def stop_command(port: int, workspace: str | None) -> str:
    """The `stop` command for a server just started; names the workspace unless it is the default one."""
    parts = ["mindinsight-clone", "stop", "--port", str(port)]
    default = os.path.realpath(os.path.expanduser(BY_NAME["workspace"].default))
    if workspace and os.path.realpath(workspace) != default:
        parts += ["--workspace", shlex.quote(str(workspace))]
    return " ".join(parts)


@main.command()
@click.option("--port", type=click.IntRange(1, 65535), default=None, show_default="8080",
              help="Port of the server to stop. [env: MINDINSIGHT_PORT]")
@click.option("--workspace", default=None, show_default="~/mindinsight-clone",
              help="Workspace the server was started with. [env: MINDINSIGHT_WORKSPACE]")
@click.option("--config", "config", default=None, show_default="none", help=CONFIG_HELP)
def stop(port: int | None, workspace: str | None, config: str | None) -> None:
    """Stop the server that `start` started on this port (and nothing else)."""
    settings = _settings_or_exit({"port": port, "workspace": workspace}, config)
    try:
        record = lifecycle.stop(settings.workspace, settings.port)
    except lifecycle.LifecycleError as err:
        click.echo(str(err), err=True)
        sys.exit(err.exit_code)
    click.echo(f"Stopped mindinsight-clone on port {record.port} (pid {record.pid}).")


@main.command("parse-summary")
@click.option("--summary-dir", default=".", show_default="current directory",
              help="Directory whose newest summary file is dumped (a local path or a storage URL).")
@click.option("--output", default=".", show_default="current directory",
              help="Where the output_<timestamp> folder (scalar.csv, image/) is created.")
@click.option("--all-files", is_flag=True, default=False,
              help="Read every summary file of the dir, oldest first, into one scalar.csv (not MindInsight's).")
@click.option("--recursive", is_flag=True, default=False,
              help="Dump every run below --summary-dir, each into output_<timestamp>/<run path>/ (not MindInsight's).")
def parse_summary(summary_dir: str, output: str, all_files: bool, recursive: bool) -> None:
    """Dump the newest summary file of a dir to scalar.csv and PNG files, as MindInsight's parse_summary."""
    from mindinsight_clone import summary_export  # here: the server commands do not need it

    package = logging.getLogger("mindinsight_clone")  # the record reader's warnings too; MindInsight's format
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("[%(levelname)s]%(message)s"))
    package.addHandler(handler)
    summary_export.LOGGER.setLevel(logging.INFO)
    try:
        location = summary_export.summary_location(summary_dir)
        output = os.path.realpath(os.path.expanduser(output))
        if not recursive:
            summary_export.parse_summary(location, output, all_files=all_files)
        elif summary_export.parse_summary_runs(location, output, all_files=all_files)[1]:
            sys.exit(1)  # some run could not be dumped (each one logged)
    except (summary_export.ExportError, storage.StorageConfigError) as err:
        if isinstance(err, storage.StorageConfigError):
            click.echo(f"Error: {err}", err=True)
        sys.exit(1)
    finally:
        package.removeHandler(handler)
