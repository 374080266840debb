"""Step input templates: the expansion is bounded while it happens, not measured afterwards."""

from __future__ import annotations

import json

import pytest

from app.pipelines import contract


def test_rendering_is_unchanged_within_the_bound() -> None:
    template = "Order {{ input.order }}; all: {{ input }}; again {{ input.order }}; prev {{ prev.output }}"
    value = {"order": "A-7", "text": "您好"}
    expected = f'Order "A-7"; all: {json.dumps(value, ensure_ascii=False)}; again "A-7"; prev {{"x": 1}}'.replace(
        "{{", "{"
    )
    assert contract.render(template, value, {"x": 1}, {}) == expected
    assert contract.render(template, value, {"x": 1}, {}, max_chars=len(expected)) == expected
    with pytest.raises(contract.RenderTooLongError):
        contract.render(template, value, {"x": 1}, {}, max_chars=len(expected) - 1)


def test_a_template_repeating_a_large_value_is_refused_as_soon_as_it_passes_the_bound() -> None:
    # 2,000 placeholders of a 100,000-character input: 200 MB once expanded, then measured.
    template = "{{ input }} " * 2_000
    value = "长" * 100_000
    with pytest.raises(contract.RenderTooLongError) as refused:
        contract.render(template, value, None, {}, max_chars=32_000)
    # Stopped at the first piece that passed the bound: one value's JSON past it at most.
    assert 32_000 < refused.value.length <= 32_000 + len(json.dumps(value, ensure_ascii=False))
