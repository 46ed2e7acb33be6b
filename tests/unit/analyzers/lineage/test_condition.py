from __future__ import annotations

from typing import Any

import pytest

from mindinsight_clone.analyzers.lineage.condition import validate
from mindinsight_clone.errors import LineageSearchConditionParamError

P = "Search_condition param error: "


def _msg(condition: Any) -> str:
    with pytest.raises(LineageSearchConditionParamError) as info:
        validate(condition)
    assert info.value.error_code == "50542218"
    return info.value.message


@pytest.mark.parametrize(("condition", "message"), [
    ({"limit": 0}, "Invalid input limit. 0 < limit <= 100"),
    ({"limit": 101}, "Invalid input limit. 0 < limit <= 100"),
    ({"limit": "10"}, "TypeError. The limit must be int."),
    ({"limit": True}, "TypeError. The limit must be int."),
    ({"offset": 1.5}, "TypeError. The offset must be int."),
    ({"offset": 100001}, "Invalid input offset. 0 <= offset <= 100000"),
    ({"offset": -1}, "Invalid input offset. 0 <= offset <= 100000"),
    ({"sorted_type": "descending"}, "ValueError. The sorted_name must exist when sorted_type exists."),
    ({"sorted_name": "epoch", "sorted_type": "up"}, "ValueError. The sorted_type must be ascending or descending."),
    ({"nope": {"eq": 1}}, "ValueError. The search attribute not supported."),
    ({"metric/": {"eq": 1}}, "ValueError. The search attribute not supported."),
    ({"epoch": {"like": 1}}, "ValueError. The compare condition should be in ('eq', 'lt', 'gt', 'le', 'ge', 'in', "
                             "'not_in')."),
    ({"epoch": 3}, "TypeError. The search_condition element epoch should be dict."),
    ({"epoch": {"eq": "3"}}, "The parameter epoch is invalid. It should be a positive integer."),
    ({"epoch": {"eq": -1}}, "The parameter epoch is invalid. It should be a positive integer."),
    ({"batch_size": {"eq": True}}, "The parameter batch_size is invalid. It should be a non-negative integer."),
    ({"model_size": {"lt": 2**63}}, "The parameter model_size is invalid. It should be an integer between 0 and "
                                    "pow(2, 63) -1."),
    ({"epoch": {"in": 3}}, "The parameter epoch is invalid. The value of `in` operation must be list or tuple."),
    ({"network": {"gt": "a"}}, "The parameter network is invalid. Its operation should be `eq`, `in` or `not_in`."),
    ({"network": {"eq": 1}}, "The parameter network is invalid. It should be a dict and the value should be a "
                             "string."),
    ({"learning_rate": {"gt": "x"}}, "The parameter learning_rate is invalid. It should be a dict and the value "
                                     "should be a float or a integer."),
    ({"loss": {"lt": False}}, "The parameter loss is invalid. It should be a float."),
    ({"metric/acc": {"gt": "x"}}, "The parameter metric/acc is invalid. It should be a dict and the value should be "
                                  "a float or a integer"),
    ({"lineage_type": {"in": ["nope"]}}, "The parameter lineage_type is invalid. It should be 'dataset' or 'model'."),
    ({"lineage_type": "model"}, "The parameter lineage_type is invalid. It should be 'dataset' or 'model'."),
    ([1, 2], "TypeError. Invalid search_condition type, it should be dict."),
    ("x", "TypeError. Invalid search_condition type, it should be dict."),
])
def test_errors(condition: Any, message: str) -> None:
    assert _msg(condition) == P + message


def test_bad_sorted_name_lists_fields() -> None:
    message = _msg({"sorted_name": "nope"})
    assert message.startswith(P + "ValueError. The sorted_name must be in ['summary_dir', 'loss_function',")
    assert message.endswith("'dataset_mark'] or start with `metric/` or `user_defined/`.")
    assert _msg({"sorted_name": "metric/"}) == message
    assert _msg({"sorted_name": 3}) == message


@pytest.mark.parametrize("condition", [
    {},
    {"limit": 100, "offset": 100000},
    {"sorted_name": "tag", "sorted_type": None},
    {"sorted_name": "metric/Accuracy", "sorted_type": "ascending"},
    {"sorted_name": "user_defined/x"},
    {"summary_dir": {"in": ["./a"], "not_in": ["./b"], "eq": "./a"}},
    {"epoch": {"eq": 3, "lt": 4, "gt": 0, "le": 3, "ge": 3, "in": [3], "not_in": [2]}},
    {"learning_rate": {"gt": 0.01, "in": [0.1], "not_in": [0.2]}},
    {"metric/acc": {"ge": 0, "in": [1.0]}},
    {"user_defined/note": {"eq": "x"}, "user_defined/n": {"gt": 1}},
    {"lineage_type": {"eq": "model"}},
    {"lineage_type": {"in": ["model", "dataset"]}},
    {"lineage_type": {"not_in": ["dataset"]}},
    {"dataset_mark": {"eq": "2"}},
])
def test_valid(condition: dict[str, Any]) -> None:
    assert validate(condition) is condition
