"""transports layer; see README.md#architecture."""
