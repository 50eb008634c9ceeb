"""The read side: query parsing, lexical scoring, phrase bonus, gates, ranking, packing,
explain and traces. Ranking parts import only ``cairn.model`` and are pure."""
