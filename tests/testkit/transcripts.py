"""Small conversations written by the tests themselves (LoCoMo data is never copied here):
JSONL turns and a LoCoMo-shaped conversation for the ingest tests."""

from __future__ import annotations

import json
from typing import Any


def jsonl(*turns: dict[str, Any]) -> str:
    return "".join(json.dumps(t) + "\n" for t in turns)


TURNS = (
    {"id": "t1", "speaker": "Ana", "text": "I moved the backup job to Sunday night.", "time": "2026-10-01T09:00:00Z"},
    {"id": "t2", "role": "assistant", "text": "Noted.", "time": "2026-10-01T09:00:05Z"},
    {"id": "t3", "speaker": "Ana", "text": "Noted.", "time": "2026-10-01T09:01:00Z"},
)


def locomo_conversation(sample_id: str = "conv-x", speaker_a: str = "Ana", speaker_b: str = "Ben") -> dict[str, Any]:
    return {
        "sample_id": sample_id,
        "qa": [],
        "conversation": {
            "speaker_a": speaker_a,
            "speaker_b": speaker_b,
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": speaker_a, "dia_id": "D1:1", "text": "I painted a sunrise last weekend."},
                {"speaker": speaker_b, "dia_id": "D1:2", "text": "Show me!", "blip_caption": "a photo of a lake"},
            ],
            "session_2_date_time": "10:05 am on 3 June, 2023",
            "session_2": [
                {"speaker": speaker_a, "dia_id": "D2:1", "text": "We went camping in the mountains."},
            ],
        },
    }
