import sys

from profiler.cli import app

if __name__ == "__main__":
    sys.exit(app())
