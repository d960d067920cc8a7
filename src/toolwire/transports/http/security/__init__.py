"""Guards in front of the HTTP endpoints: Host and Origin checks, bearer-token authentication."""
