"""Tests that run the code blocks of README.md and docs/."""
