"""The HTTP+SSE transport of protocol 2024-11-05: an event stream per client, POSTs beside it."""
