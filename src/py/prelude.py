"""Helpers loaded into every omp-eval kernel, once per process.

The host sends this file as the kernel's silent init cell. Everything it defines lives in the
user namespace, so names are few and underscored unless they are meant for the user.
"""
if "__omp_prelude__" not in globals():
    __omp_prelude__ = True

    def _emit_status(op, **data):
        """Sends a status event (shown as a short status line, never as text output)."""
        payload = dict(data)
        payload["op"] = op
        display({"application/x-omp-status": payload}, raw=True)
