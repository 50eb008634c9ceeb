"""Pure rules: authority, aging, confidence, retention, feedback, redaction.

Functions of their inputs (including ``now``); they import only ``cairn.model`` and
return decisions that the engine applies.
"""
