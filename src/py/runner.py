"""omp-eval Python kernel: the script the host runs (`python -u runner.py`).

It only checks the interpreter and loads the server (server.py, beside it) as a module, so that
Python keeps the server's bytecode in __pycache__: compiling it anew on every start would cost
more than the rest of the start-up. Stdlib only, Python 3.8 grammar.
"""
import sys

if sys.version_info < (3, 8):
    sys.stderr.write("omp-eval: Python 3.8 or newer is required (this is %d.%d)\n" % sys.version_info[:2])
    sys.exit(78)

import importlib.util
import os

sys.dont_write_bytecode = False  # the cache directory is private to this user: let Python use it
_spec = importlib.util.spec_from_file_location(
    "_omp_runner", os.path.join(os.path.dirname(os.path.abspath(__file__)), "server.py")
)
_server = importlib.util.module_from_spec(_spec)
sys.modules["_omp_runner"] = _server
_spec.loader.exec_module(_server)
_server._serve()
