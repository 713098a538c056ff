#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The command line of the end-to-end oracle, the package tests/e2e/oracle/
(its documentation: tests/e2e/oracle/__init__.py):

  oracle.py dump|ready|check|value SCENARIO ...
"""

import os
import signal
import sys

# No __pycache__ in the source tree from a run of the suite.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle.cli import main  # noqa: E402  (the package beside this file)

if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under "| head"
    sys.exit(main(sys.argv[1:]))
