"""Who is calling: bearer-token checking and the identity a request carries to the tools."""
