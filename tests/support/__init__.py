"""Test support code that is not a fixture: the in-memory fake store."""
