"""MindInsight's start flags that have no feature left (the online debugger) or another name (issue 31).

`mindinsight start --enable-debugger ... --max-graph-node-size ...` must start: the flags are accepted with
MindInsight's validation and messages (rc 2), the retired ones are named in a warning, and --max-graph-node-size
sets --max-graph-nodes.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mindinsight_clone.cli import main
from mindinsight_clone.config import SettingError, given_retired, load_settings, resolve


def start(tmp_path: Path, *args: str) -> tuple[int, str]:
    """`start` on a missing summary dir: every flag check runs, then it stops before launching anything."""
    result = CliRunner().invoke(main, ["start", "--summary-base-dir", str(tmp_path / "missing"), "--workspace",
                                       str(tmp_path / "ws"), *args])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--enable-debugger", "maybe"], "argument --enable-debugger: invalid enable_debugger_string value: 'maybe'"),
        (["--debugger-port", "0"], "--debugger-port should be chosen from 1 to 65535"),
        (["--debugger-port", "abc"], "argument --debugger-port: invalid int value: 'abc'"),
        (["--offline-debugger-mem-limit", "6143"], "--offline-debugger-mem-limit should be chosen from 6144 to "
                                                   "2147483647"),
        (["--max-offline-debugger-session-num", "3"], "--max-offline-debugger-session-num should be chosen from 1 "
                                                      "to 2"),
        (["--max-graph-node-size", "2000001"], "--max-graph-node-size should be chosen from 1 to 2000000, default "
                                               "is 100000"),
        (["--enable-debugger", "1", "--port", "9000", "--debugger-port", "9000"],
         "Port not available error. Detail: The ports for debugger and web page are both 9000,please use another "
         "port as debugger-port."),
    ],
)
def test_bad_values_get_mindinsight_messages(tmp_path: Path, args: list[str], message: str) -> None:
    code, output = start(tmp_path, *args)
    assert code == 2
    assert message in output


@pytest.mark.parametrize(("value", "enabled"), [("True", True), ("TRUE", True), ("1", True), ("false", False),
                                               ("0", False)])
def test_enable_debugger_takes_mindinsight_booleans(tmp_path: Path, value: str, enabled: bool) -> None:
    """Enabled, the debugger port must differ from --port (MindInsight's check); disabled, it is not checked."""
    code, output = start(tmp_path, "--enable-debugger", value, "--port", "9000", "--debugger-port", "9000")
    if enabled:
        assert code == 2 and "The ports for debugger and web page are both 9000" in output
    else:
        assert code == 1 and "does not exist" in output  # got past every flag check
        assert "WARNING: --enable-debugger is accepted for MindInsight command lines but retired" in output


def test_same_ports_pass_while_the_debugger_is_off(tmp_path: Path) -> None:
    code, output = start(tmp_path, "--port", "9000", "--debugger-port", "9000")
    assert code == 1 and "does not exist" in output
    assert "--debugger-port is accepted for MindInsight command lines but retired: nothing listens" in output


def test_no_warning_without_retired_flags(tmp_path: Path) -> None:
    code, output = start(tmp_path)
    assert code == 1 and "retired" not in output


def test_retired_flags_from_the_environment_and_config_are_named(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("offline_debugger_mem_limit: 8192\n")
    given = given_retired(config=f"file:{config}", environ={"MINDINSIGHT_ENABLE_DEBUGGER": "True"})
    assert [(s.name, where) for s, where in given] == [
        ("enable_debugger", "MINDINSIGHT_ENABLE_DEBUGGER"),
        ("offline_debugger_mem_limit", f"--config file:{config}"),
    ]


def test_max_graph_node_size_sets_max_graph_nodes() -> None:
    assert resolve(cli={"max_graph_node_size": 7}, environ={}).max_graph_nodes == 7
    assert resolve(environ={"MINDINSIGHT_MAX_GRAPH_NODE_SIZE": "123"}).max_graph_nodes == 123
    assert resolve(environ={}).max_graph_nodes == 500_000  # not given: our default, not MindInsight's


def test_the_more_precedent_of_the_two_names_wins(tmp_path: Path) -> None:
    env = {"MINDINSIGHT_MAX_GRAPH_NODES": "2000"}
    assert resolve(cli={"max_graph_node_size": 30}, environ=env).max_graph_nodes == 30  # flag beats env
    assert resolve(cli={"max_graph_nodes": 40}, environ={"MINDINSIGHT_MAX_GRAPH_NODE_SIZE": "30"}).max_graph_nodes \
        == 40
    config = tmp_path / "c.yaml"
    config.write_text("max_graph_node_size: 50\n")
    assert resolve(config=f"file:{config}", environ=env).max_graph_nodes == 2000  # env beats config


def test_both_names_in_one_place_must_agree() -> None:
    with pytest.raises(SettingError, match="--max-graph-node-size and --max-graph-nodes"):
        resolve(cli={"max_graph_node_size": 5, "max_graph_nodes": 6}, environ={})
    assert resolve(cli={"max_graph_node_size": 5, "max_graph_nodes": 5}, environ={}).max_graph_nodes == 5


def test_alias_out_of_range_from_the_environment_is_refused() -> None:
    with pytest.raises(SettingError, match="MINDINSIGHT_MAX_GRAPH_NODE_SIZE"):
        resolve(environ={"MINDINSIGHT_MAX_GRAPH_NODE_SIZE": "0"})


def test_workers_ignore_an_alias_left_in_the_inherited_environment() -> None:
    """The shell's MINDINSIGHT_MAX_GRAPH_NODE_SIZE, beaten by a --max-graph-nodes flag, reaches the workers too."""
    shell = {"MINDINSIGHT_MAX_GRAPH_NODE_SIZE": "123"}
    settings = resolve(cli={"max_graph_nodes": 5000}, environ=shell)
    worker_env = {**shell, **settings.to_env()}
    assert load_settings(worker_env).max_graph_nodes == 5000
