"""The omp-eval Python kernel (see server.py). Importing the package has no side effects."""
