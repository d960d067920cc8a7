"""Tests of toolwire.protocol.session: a session's requests, calls in flight and back-channel."""
