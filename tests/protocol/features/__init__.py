"""Tests of toolwire.protocol.features: tools, resources, prompts and completion as served."""
