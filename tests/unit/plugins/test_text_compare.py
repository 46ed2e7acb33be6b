"""text/compare's flattening of a text value (plugins/text_compare.flatten): literals only, dotted keys."""

from __future__ import annotations

from mindinsight_clone.plugins.text_compare import MAX_LEAVES, flatten


def test_str_dict_becomes_dotted_keys_with_str_leaves() -> None:
    value = str({"model": {"model_config": {"hidden_size": 4096, "use_past": False, "eps": 1e-05},
                           "arch": {"type": "LlamaForCausalLM"}},
                 "callbacks": [{"type": "A"}, {"type": "B", "steps": 100}], "betas": [0.9, 0.95], "empty": {},
                 "none": None})
    leaves, error = flatten("cfg", value)
    assert error is None
    assert leaves == {"cfg.model.model_config.hidden_size": "4096", "cfg.model.model_config.use_past": "False",
                      "cfg.model.model_config.eps": "1e-05", "cfg.model.arch.type": "LlamaForCausalLM",
                      "cfg.callbacks[0].type": "A", "cfg.callbacks[1].type": "B", "cfg.callbacks[1].steps": "100",
                      "cfg.betas": "[0.9, 0.95]", "cfg.empty": "{}", "cfg.none": "None"}


def test_plain_and_scalar_texts_stay_whole() -> None:
    assert flatten("lr", "0.0003") == ({"lr": "0.0003"}, None)
    assert flatten("note", "# Title\n{not code}") == ({"note": "# Title\n{not code}"}, None)
    assert flatten("paths", "['/data/a', '/data/b']") == ({"paths": "['/data/a', '/data/b']"}, None)


def test_what_is_not_a_literal_is_never_evaluated() -> None:
    for text in ("{'a': open('/etc/passwd').read()}", "{'a': 1, 'b': ", "[x for x in range(9)]", "{'a': b}"):
        leaves, error = flatten("k", text)
        assert leaves == {"k": text} and error is not None and "not a Python literal" in error


def test_bounds() -> None:
    leaves, error = flatten("k", str({f"x{i}": i for i in range(MAX_LEAVES + 1)}))
    assert len(leaves) == 1 and error is not None and str(MAX_LEAVES) in error
    leaves, error = flatten("k", "[" * 50_000 + "]" * 50_000)
    assert len(leaves) == 1 and error is not None
