"""The trace scrubber: secrets out, sizes bounded."""

from __future__ import annotations

import json

from app.runtime.trace import DICT_CAP, LIST_CAP, MESSAGES_CAP_CHARS, REDACTED, TEXT_CAP, Scrubber

MODEL_KEY = "sk-model-key-4f1c2b9e"


class TestScrubber:
    def test_secret_keys_are_redacted_at_any_depth_and_known_secrets_anywhere(self) -> None:
        scrubber = Scrubber([MODEL_KEY, None, "short"])
        value = {
            "user": {"password": "hunter2", "profile": [{"apiKey": "k-1"}, {"note": f"key is {MODEL_KEY}!"}]},
            "Authorization": "Bearer x",
            "short": "short is too short to be a secret",
        }

        scrubbed = scrubber.value(value)

        assert scrubbed["user"]["password"] == REDACTED
        assert scrubbed["user"]["profile"][0]["apiKey"] == REDACTED
        assert scrubbed["user"]["profile"][1]["note"] == f"key is {REDACTED}!"
        assert scrubbed["Authorization"] == REDACTED
        assert scrubbed["short"] == "short is too short to be a secret"

    def test_tool_call_arguments_in_model_messages_are_parsed_and_scrubbed(self) -> None:
        message = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "function": {"name": "login", "arguments": json.dumps({"user": "a", "token": "t-9"})}},
                {"id": "c2", "function": {"name": "raw", "arguments": f"not json {MODEL_KEY}"}},
            ],
        }

        scrubbed = Scrubber([MODEL_KEY]).message(message)

        assert scrubbed["tool_calls"][0]["arguments"] == {"user": "a", "token": REDACTED}
        assert scrubbed["tool_calls"][1]["arguments"] == f"not json {REDACTED}"

    def test_sizes_are_bounded(self) -> None:
        scrubber = Scrubber()
        nested: object = "leaf"
        for _ in range(100):
            nested = {"deeper": nested}
        value = {
            "text": "x" * (TEXT_CAP * 3),
            "items": list(range(LIST_CAP * 4)),
            "wide": {f"k{index}": index for index in range(DICT_CAP * 2)},
            "deep": nested,
            "nan": float("nan"),
        }

        scrubbed = scrubber.value(value)

        assert len(scrubbed["text"]) < TEXT_CAP + 50 and scrubbed["text"].endswith(f"{TEXT_CAP * 3} characters]")
        assert len(scrubbed["items"]) == LIST_CAP + 1
        assert len(scrubbed["wide"]) == DICT_CAP + 1
        assert scrubbed["nan"] is None
        assert len(json.dumps(scrubbed["deep"])) < 2000

    def test_messages_keep_the_system_prompt_and_the_latest_within_the_cap(self) -> None:
        messages = [{"role": "system", "content": "rules"}] + [
            {"role": "user", "content": f"{index}" + "y" * 3000} for index in range(60)
        ]

        kept, omitted = Scrubber().messages(messages)

        assert kept[0] == {"role": "system", "content": "rules"}
        assert kept[-1]["content"].startswith("59")
        assert omitted == 61 - len(kept)
        assert omitted > 0
        assert len(json.dumps(kept)) <= MESSAGES_CAP_CHARS + 200
