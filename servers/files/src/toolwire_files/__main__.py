"""`python -m toolwire_files DIR...`: the same as the `toolwire-files` command."""

from toolwire_files.cli import main

if __name__ == "__main__":
    main()
