"""tools layer; see README.md#architecture."""
