"""Helpers loaded into every omp-eval kernel, once per process (and again after %reset).

The host sends this file as the kernel's init cell. Its names live in the user namespace but
are hidden from %who and %whos; those meant for the user have plain names.
"""
if "__omp_prelude__" not in globals():
    __omp_prelude__ = True

    def _emit_status(op, **data):
        """Sends a status event (shown as a short status line, never as text output)."""
        payload = dict(data)
        payload["op"] = op
        display({"application/x-omp-status": payload}, raw=True)

    def env(key=None, value=None):
        """env() lists the environment (a dict), env(KEY) reads one variable (None when unset),
        env(KEY, VALUE) sets it, as %env does."""
        import os

        if key is None:
            return dict(os.environ)
        if value is None:
            return os.environ.get(key)
        os.environ[str(key)] = str(value)
        return str(value)

    def _resolve_name(path):
        """The file an `artifact://<id>` (a cell's full output) or `agent://<id>` (an agent's
        transcript) name stands for; any other path as it is."""
        import os
        import re

        text = str(path)
        for prefix, file_name in (("artifact://", "%s.txt"), ("agent://", "agent-%s.json")):
            if text.startswith(prefix):
                name = text[len(prefix):]
                if not re.match(r"^[\w-]+$", name):
                    raise ValueError("not a valid %s name: %r" % (prefix, text))
                folder = os.environ.get("OMP_EVAL_ARTIFACTS")
                if not folder:
                    raise FileNotFoundError("%s names cannot be read here: the host named no artifacts folder" % prefix)
                return os.path.join(folder, file_name % name)
        return path

    def read(path, offset=0, limit=None):
        """The text of a file: `limit` lines from line `offset` (0-based), all of them by default.
        `artifact://<id>` and `agent://<id>` names are read from the host's artifacts folder."""
        with open(_resolve_name(path), encoding="utf-8", errors="replace") as handle:
            lines = handle.readlines()
        chosen = lines[offset : None if limit is None else offset + limit]
        _emit_status("read", path=str(path), lines=len(chosen), total=len(lines))
        return "".join(chosen)

    def write(path, text):
        """Writes text to a file (replacing it); returns the number of characters written."""
        with open(path, "w", encoding="utf-8") as handle:
            count = handle.write(text)
        _emit_status("write", path=str(path), chars=count)
        return count

    def append(path, text):
        """Appends text to a file; returns the number of characters written."""
        with open(path, "a", encoding="utf-8") as handle:
            count = handle.write(text)
        _emit_status("append", path=str(path), chars=count)
        return count

    def tree(path=".", max_depth=2):
        """A directory tree as text, `max_depth` levels deep, hidden entries left out."""
        import os

        lines = [str(path)]
        count = 0

        def walk(folder, depth, prefix):
            nonlocal count
            try:
                names = sorted(n for n in os.listdir(folder) if not n.startswith("."))
            except OSError as exc:
                lines.append(prefix + "[" + exc.strerror + "]")
                return
            for i, name in enumerate(names):
                last = i == len(names) - 1
                full = os.path.join(folder, name)
                is_dir = os.path.isdir(full)
                lines.append(prefix + ("└── " if last else "├── ") + name + ("/" if is_dir else ""))
                count += 1
                if is_dir and depth < max_depth:
                    walk(full, depth + 1, prefix + ("    " if last else "│   "))

        walk(path, 1, "")
        _emit_status("tree", path=str(path), entries=count)
        return "\n".join(lines)

    def diff(a, b, context=3):
        """A unified diff of two texts, or of two files when both are existing paths."""
        import difflib
        import os

        names = ("a", "b")
        if all(isinstance(x, str) and "\n" not in x and os.path.isfile(x) for x in (a, b)):
            names = (a, b)
            with open(a, encoding="utf-8", errors="replace") as fa, open(b, encoding="utf-8", errors="replace") as fb:
                a, b = fa.read(), fb.read()
        lines = list(
            difflib.unified_diff(
                a.splitlines(True), b.splitlines(True), fromfile=names[0], tofile=names[1], n=context
            )
        )
        _emit_status("diff", changed=sum(1 for line in lines if line[:1] in "+-") - 2 * bool(lines))
        return "".join(lines)

    def log(message):
        """A progress line under the running cell."""
        _emit_status("log", message=str(message))

    def phase(title):
        """Marks the start of a phase of the cell's work."""
        _emit_status("phase", title=str(title))

    def parallel(thunks, concurrency=None):
        """Runs the callables on worker threads (at most `concurrency` at once, default one per
        callable up to 16) and returns their results in input order; the first failure is raised.
        Output and status events of the workers belong to the running cell."""
        import concurrent.futures
        import contextvars

        thunks = list(thunks)
        if not thunks:
            return []
        workers = concurrency or min(16, len(thunks))
        with concurrent.futures.ThreadPoolExecutor(max_workers=workers, thread_name_prefix="omp-parallel") as pool:
            futures = [pool.submit(contextvars.copy_context().run, thunk) for thunk in thunks]
            try:
                return [f.result() for f in futures]
            except BaseException:
                for f in futures:
                    f.cancel()
                raise

    def pipeline(items, *stages, concurrency=None):
        """Passes every item through the stages in order (each stage a function of one value),
        items in parallel; returns the results in input order."""

        def through(item):
            for stage in stages:
                item = stage(item)
            return item

        return parallel([(lambda item=item: through(item)) for item in items], concurrency)

    def _bridge(kind, payload, label, timeout):
        """One host call; the cell's timeout is paused while it is in flight (at most `timeout`
        seconds, or the kernel's bridge limit: then the call fails with BridgeError). The host
        pauses the timeout itself; timeout-resume tells it when this side gave up on a call."""
        _emit_status(kind, state="started", label=label)
        try:
            value = __omp_bridge__(kind, payload, timeout)
        except BaseException as exc:
            _emit_status(kind, state="failed", label=label, error=str(exc))
            raise
        finally:
            _emit_status("timeout-resume")
        _emit_status(kind, state="finished", label=label)
        return value

    def _structured(value):
        """The output as the host parsed it and checked it against the schema (ajv), or why not."""
        if value.get("schemaError"):
            raise ValueError(value["schemaError"])
        return value.get("data")

    def agent(prompt, *, agent="task", model=None, label=None, schema=None, handle=False, timeout=None):
        """Runs one agent on the host and returns its final text (the parsed object with
        `schema`; with `handle=True` a node dict whose `handle` is an agent:// URI). Without an
        answer within `timeout` seconds (default: the kernel's bridge limit) it raises BridgeError."""
        payload = {"prompt": str(prompt), "agent": agent, "model": model, "label": label, "schema": schema}
        value = _bridge("agent", payload, label or agent, timeout)
        text = value.get("output", "")
        data = _structured(value) if schema is not None else None
        if not handle:
            return data if schema is not None else text
        node = {"text": text, "output": text, "handle": value.get("handle"), "id": value.get("id"), "agent": agent}
        if schema is not None:
            node["data"] = data
        return node

    def completion(prompt, *, model=None, system=None, schema=None, timeout=None):
        """Asks the host for one completion; with `schema` the parsed object. Without an answer
        within `timeout` seconds (default: the kernel's bridge limit) it raises BridgeError."""
        payload = {"prompt": str(prompt), "model": model, "system": system, "schema": schema}
        value = _bridge("completion", payload, "completion", timeout)
        text = value.get("output", "")
        return _structured(value) if schema is not None else text
