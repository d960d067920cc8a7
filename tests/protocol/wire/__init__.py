"""Tests of toolwire.protocol.wire: frames, eras and content on the wire."""
