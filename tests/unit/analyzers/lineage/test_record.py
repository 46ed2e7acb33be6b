from __future__ import annotations

from mindinsight_clone.analyzers.lineage.files import parse_events
from mindinsight_clone.analyzers.lineage.record import merge
from tests.unit.analyzers.lineage.builders import eval_event, graph_event, train_event, user_event


def test_train_file_then_eval_file_merge() -> None:
    files = [
        parse_events("events.summary.100.0.h_lineage", [graph_event(8), user_event(seed=1), train_event(0.01, 8)]),
        parse_events("events.summary.105.0.h_lineage", [eval_event({"Accuracy": 0.75}, valid_size=10)]),
    ]
    run = merge("./r", 5.0, files)
    assert run is not None
    assert run.metric == {"Accuracy": 0.75}
    assert run.user_defined == {"seed": 1}
    assert run.values["test_dataset_count"] == 10
    assert run.values["batch_size"] == 8
    assert run.values["model_size"] == 0
    assert run.dataset_graph["batch_size"] == 8
    assert run.order_key == (105, 5.0, "./r")
    lineage = run.model_lineage("2")
    assert lineage["dataset_mark"] == "2"
    assert lineage["train_dataset_path"] is None
    assert "summary_dir" not in lineage and "dataset_graph" not in lineage


def test_a_restarted_run_keeps_every_session_later_wins_per_field() -> None:
    """Issue 21: MindSpore writes one `*_lineage` file per training session; a restart's file must not drop
    what the first session recorded (dataset graph, user-defined values, metrics it did not re-record)."""
    files = [
        parse_events("a.summary.1.0_lineage", [graph_event(16), user_event(seed=7, team="demo"), train_event(0.01)]),
        parse_events("a.summary.2.0_lineage", [eval_event({"acc": 0.1, "top5": 0.4})]),
        parse_events("a.summary.3.0_lineage", [train_event(0.5, loss=0.25), user_event(seed=8),
                                               eval_event({"acc": 0.9})]),
    ]
    run = merge("./r", 0.0, files)
    assert run is not None
    assert run.values["learning_rate"] == 0.5 and run.values["loss"] == 0.25  # the restart's values win
    assert run.values["batch_size"] == 8 and run.values["network"] == "Net"
    assert run.metric == {"acc": 0.9, "top5": 0.4}  # per metric: the newest value, none dropped
    assert run.user_defined == {"seed": 8, "team": "demo"}
    assert run.dataset_graph["batch_size"] == 16  # only session 1 recorded the dataset graph
    assert run.order_key[0] == 3


def test_a_later_dataset_graph_replaces_the_earlier_one() -> None:
    files = [parse_events("a.summary.1.0_lineage", [graph_event(16), train_event()]),
             parse_events("a.summary.2.0_lineage", [graph_event(32), train_event()])]
    run = merge("./r", 0.0, files)
    assert run is not None and run.dataset_graph["batch_size"] == 32


def test_user_defined_info_in_a_file_of_its_own_is_kept_when_the_run_has_lineage() -> None:
    files = [parse_events("a.summary.1.0_lineage", [user_event(seed=3)]),
             parse_events("a.summary.2.0_lineage", [train_event()])]
    run = merge("./r", 0.0, files)
    assert run is not None and run.user_defined == {"seed": 3}


def test_eval_without_metric_keeps_previous_metric() -> None:
    files = [parse_events("a.summary.1.0_lineage", [train_event(), eval_event({"acc": 0.3})]),
             parse_events("a.summary.2.0_lineage", [eval_event(None, valid_size=7)])]
    run = merge("./r", 0.0, files)
    assert run is not None and run.metric == {"acc": 0.3} and run.values["test_dataset_count"] == 7


def test_no_lineage_events_no_run() -> None:
    assert merge("./r", 0.0, [parse_events("x", [user_event(a=1)])]) is None
    assert merge("./r", 0.0, []) is None


def test_value_lookup() -> None:
    run = merge("./r", 0.0, [parse_events("x", [train_event(), eval_event({"acc": 1}), user_event(k="v")])])
    assert run is not None
    assert run.value("metric/acc") == 1
    assert run.value("metric/none") is None
    assert run.value("user_defined/k") == "v"
    assert run.value("summary_dir") == "./r"
    assert run.value("dataset_mark", "7") == "7"
