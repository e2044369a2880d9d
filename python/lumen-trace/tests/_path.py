"""Lets the tests import lumen_trace from the source tree, without installing it."""
import os
import sys

sys.dont_write_bytecode = True
SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
if SRC not in sys.path:
    sys.path.insert(0, SRC)
