"""omp-eval Python kernel: the script the host runs (`python -u runner.py`).

It checks the interpreter and loads the kernel package (omp_kernel, beside it) as regular
modules, so that Python keeps their bytecode in __pycache__: compiling them anew on every start
would cost more than the rest of the start-up. Stdlib only, Python 3.8 grammar.
"""
import sys

if sys.version_info < (3, 8):
    sys.stderr.write("omp-eval: Python 3.8 or newer is required (this is %d.%d)\n" % sys.version_info[:2])
    sys.exit(78)

sys.dont_write_bytecode = False  # the cache directory is private to this user: let Python use it


def _main():
    from omp_kernel import server  # sys.path[0] is this file's directory: the cache's

    server.install().serve()


_main()
