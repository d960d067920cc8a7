"""`python -m servers.demo`: serve the demo over stdio."""

from servers.demo.server import server

if __name__ == "__main__":
    server.run()
