#!/usr/bin/env python3
"""The example adapter with one bug: a cancelled prompt (Ctrl-C, EOF) is
answered with an error response, which RFD 082 step 6 rules out (the
response stays a success, as before RFD 082). `inquiry-model conform` must
fail on it and shrink the failure to a small scenario."""

import os
import runpy
import sys

os.environ["CONFORM_BREAK"] = "cancel_is_error"
sys.argv[0] = os.path.join(os.path.dirname(os.path.abspath(__file__)), "conform_adapter.py")
runpy.run_path(sys.argv[0], run_name="__main__")
