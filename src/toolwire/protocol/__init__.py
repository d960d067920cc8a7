"""protocol layer; see README.md#architecture."""
