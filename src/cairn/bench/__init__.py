"""Evaluation harness: LoCoMo evidence retrieval, the scale ladder, the correction set."""
