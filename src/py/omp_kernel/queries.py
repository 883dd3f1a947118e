"""The kernel's queries between cells: completions, whether a cell is complete, the user's
variables. Loaded at the first query. `k` is the kernel (server.py)."""
from .channel import valid_id
from .tracebacks import safe_str


def complete(k, request):
    """Completions for the name before the cursor. User code runs here too (__dir__,
    properties), so an interrupt stops it like a cell."""
    from .complete import completions

    request_id = request.get("id")
    code = request.get("code")
    cursor = request.get("cursor", len(code) if isinstance(code, str) else 0)
    if not valid_id(request_id) or not isinstance(code, str) or not isinstance(cursor, int) or isinstance(cursor, bool):
        known_id = request_id if valid_id(request_id) else None
        k.channel.protocol_error("complete needs id and code (strings) and cursor (an integer)", known_id)
        return
    cursor = max(0, min(cursor, len(code)))
    matches, start = [], cursor
    k.interrupts.start_cell()
    try:
        matches, start = completions(code, cursor, k.executor.user_ns, k.magic_names)
    except KeyboardInterrupt:
        pass
    finally:
        k.interrupts.in_cell = False
    k.channel.send({"type": "complete_reply", "id": request_id, "matches": matches, "start": start, "end": cursor})


def is_complete(k, request):
    """Whether Enter runs the code or adds a line: complete, incomplete (with the next line's
    indentation) or invalid, as IPython's check_complete says."""
    from .complete import is_complete as check

    request_id = request.get("id")
    code = request.get("code")
    if not isinstance(code, str) or not valid_id(request_id):
        known_id = request_id if valid_id(request_id) else None
        k.channel.protocol_error("is_complete needs id and code (strings)", known_id)
        return
    try:
        status, indent = check(code, k.private_import)
    except Exception as exc:  # never leave the host without an answer
        k.channel.diag("is_complete failed: %s" % safe_str(exc))
        status, indent = "unknown", None
    reply = {"type": "is_complete_reply", "id": request_id, "status": status}
    if status == "incomplete":
        reply["indent"] = " " * (indent or 0)
    k.channel.send(reply)


def variables(k, request):
    """The user's names with type, summary and shape, as %whos. User code runs here (__str__),
    so an interrupt stops it like a cell: the names described so far are sent."""
    from .variables import list_variables

    request_id = request.get("id")
    limit = request.get("limit", 500)
    name_ms = request.get("nameTimeoutMs", 1000)
    timeout_ms = request.get("timeoutMs")
    numbers = (limit, name_ms) if timeout_ms is None else (limit, name_ms, timeout_ms)
    if not valid_id(request_id) or not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers):
        known_id = request_id if valid_id(request_id) else None
        k.channel.protocol_error(
            "variables needs id (a string), limit, nameTimeoutMs and timeoutMs (integers)", known_id
        )
        return
    described, total = [], 0
    k.interrupts.start_cell()
    try:
        timeout = None if timeout_ms is None else timeout_ms / 1000.0
        ns, hidden = k.executor.user_ns, k.executor.hidden
        described, total = list_variables(ns, hidden, limit, name_ms / 1000.0, timeout)
    except KeyboardInterrupt:
        pass
    finally:
        k.interrupts.in_cell = False
    k.channel.send({"type": "variables_reply", "id": request_id, "variables": described, "total": total})
