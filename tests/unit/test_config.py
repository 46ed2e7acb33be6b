"""Settings: declared once, documented everywhere, resolved with the documented precedence."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mindinsight_clone.cli import main
from mindinsight_clone.config import SETTINGS, SettingError, read_config_file, resolve
from tests.conftest import REPO


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.name)
def test_every_setting_is_documented(setting) -> None:  # type: ignore[no-untyped-def]
    readme = (REPO / "README.md").read_text()
    help_text = CliRunner().invoke(main, ["start", "--help"], terminal_width=200).output
    example = (REPO / "conf" / "example.yaml").read_text()
    assert f"`{flag(setting.name)}`" in readme and f"`{setting.env}`" in readme
    assert flag(setting.name) in help_text and setting.env in help_text
    assert setting.name in example


def test_example_config_holds_the_defaults() -> None:
    values = read_config_file(f"file:{REPO / 'conf' / 'example.yaml'}")
    defaults = {s.name: s.default for s in SETTINGS}
    assert values and all(defaults[name] == value for name, value in values.items())


def test_precedence_defaults_config_env_flag(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("port: 1111\nthreads: 3\nreload_interval: 9\n")
    env = {"MINDINSIGHT_PORT": "2222", "MINDINSIGHT_THREADS": "4"}
    settings = resolve(cli={"port": 3333}, config=f"file:{config}", environ=env)
    assert settings.port == 3333  # flag beats env
    assert settings.threads == 4  # env beats config
    assert settings.reload_interval == 9  # config beats default
    assert settings.scalar_samples == 1000  # default


def test_python_module_config_reads_upper_case_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "my_settings.py").write_text("PORT = 4444\nport = 1\nHELPER = 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert read_config_file("python:my_settings") == {"port": 4444}


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MINDINSIGHT_RELOAD_INTERVAL": "-1"}, ">= 0"),
        ({"MINDINSIGHT_RELOAD_INTERVAL": "abc"}, "must be int"),
        ({"MINDINSIGHT_PORT": "99999"}, "<= 65535"),
    ],
)
def test_bad_environment_values_name_their_source(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingError, match=message) as info:
        resolve(environ=env)
    assert next(iter(env)) in str(info.value)


def test_unknown_yaml_key_is_an_error(tmp_path: Path) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("prot: 1\n")
    with pytest.raises(SettingError, match="unknown setting"):
        read_config_file(f"file:{config}")


def test_settings_round_trip_through_the_environment(tmp_path: Path) -> None:
    settings = resolve(cli={"port": 5555, "summary_base_dir": str(tmp_path)}, environ={})
    assert resolve(environ=settings.to_env()) == settings
