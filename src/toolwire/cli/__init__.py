"""cli layer; see README.md#architecture."""
