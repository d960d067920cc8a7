"""schema layer; see README.md#architecture."""
