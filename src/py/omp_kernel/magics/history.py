"""The session's inputs: %history (%hist), %macro, %save, %tb."""
import os

from ..transform import ipython_form


class Macro(object):
    """Cells of the history to run again: typing the macro's name runs them."""

    def __init__(self, code):
        self.value = code.rstrip() + "\n"

    def __str__(self):
        return self.value

    def __repr__(self):
        return "IPython.macro.Macro(%s)" % repr(self.value)


def parse_ranges(spec, count):
    """IPython's input ranges: "4", "1-3" (inclusive), "2:5" (Python slice), "~" forms ignored;
    the empty spec is everything before the current cell."""
    numbers = []
    for part in spec.split():
        if "-" in part and not part.startswith("-"):
            start, _, end = part.partition("-")
            numbers.extend(range(int(start or 1), int(end or count) + 1))
        elif ":" in part:
            start, _, end = part.partition(":")
            numbers.extend(range(int(start or 1), int(end or count)))
        elif part.isdigit():
            numbers.append(int(part))
    return numbers


def _history_args(arg, UsageError):
    """%history's options as IPython's argument parser reads them: anywhere on the line (`-l 2 -o`
    is the last two with outputs), `-f FILE`, a word such as `-3` a range."""
    words = arg.split()
    opts, rest = {}, []
    i = 0
    while i < len(words):
        word = words[i]
        if not word.startswith("-") or len(word) < 2 or word[1].isdigit():
            rest.append(word)
        else:
            for at, letter in enumerate(word[1:]):
                if letter == "f":
                    value = word[at + 2 :]
                    if not value and i + 1 < len(words):
                        i += 1
                        value = words[i]
                    if not value:
                        raise UsageError("argument -f: expected one argument")
                    opts["f"] = value
                    break
                if letter not in "noplgtu":
                    raise UsageError("unrecognized arguments: %s" % word)
                opts[letter] = True
        i += 1
    return opts, " ".join(rest)


def _overwrite(api, path, arg, magic="save"):
    """IPython asks before %save (or %history -f) replaces a file; a cell that cannot ask is told
    what to do instead, and nothing is replaced."""
    if not api.stdin_allowed:
        if magic == "save":
            print("File `%s` exists. Use `%%save -f %s` to force overwrite" % (path, arg))
        else:
            print("File `%s` exists: not replaced (this cell cannot ask). Remove it, or name another file." % path)
        return False
    # (IPython's own words for each)
    prompt = "File `%s` exists. Overwrite (y/[N])? " if magic == "save" else "File %r exists. Overwrite? "
    answer = None
    while answer not in ("y", "yes", "n", "no"):
        try:
            answer = api.ask(prompt % path).strip().lower() or "n"
        except EOFError:  # the input ended (omp-eval run): no, the default
            print()
            answer = "n"
    if answer in ("n", "no"):
        print("Operation cancelled." if magic == "save" else "Aborting.")
        return False
    return True


def register(reg):
    api = reg.api
    from . import UsageError, parse_options, value_of

    def inputs(spec, with_current=False):
        """The inputs of RANGES, by number; a number this kernel never ran (a JavaScript cell's in
        the notebook's one count, a cell before a restart) has none."""
        count = len(api.In) - 1
        numbers = parse_ranges(spec, count) if spec.strip() else list(range(1, count + with_current))
        return [(n, api.In[n]) for n in numbers if 0 < n < len(api.In) and api.In[n]]

    def matching(pattern, translated=False):
        """The inputs before this cell that match `pattern`, a glob (`translated`: as IPython
        spells them in Python, which is what IPython's %history -t -g searches)."""
        import fnmatch

        form = ipython_form if translated else (lambda source: source)
        return [(n, source) for n, source in inputs("") if fnmatch.fnmatch(form(source), pattern)]

    def find_user_code(target, raw=True):
        """IPython's find_user_code: history ranges (translated into Python unless `raw`), else a
        file, else a string or Macro in the namespace. Raises ValueError or TypeError with a
        message to print."""
        form = (lambda source: source) if raw else ipython_form
        # (No target: the whole session before this cell, as IPython 8's.)
        code = "\n".join(form(source) for _, source in inputs(target))
        if code:
            return code
        if os.path.isfile(os.path.expanduser(target)):
            with open(os.path.expanduser(target), encoding="utf-8", errors="replace") as handle:
                return handle.read()
        if os.path.isdir(os.path.expanduser(target)):
            raise ValueError("'%s' is a directory, not a regular file." % target)
        try:
            value = eval(target, api.user_ns)
        except Exception:
            raise ValueError("'%s' was not found in history, as a file, url, nor in the user namespace." % target) from None
        if isinstance(value, str):
            return value
        if isinstance(value, Macro):
            return value.value
        raise TypeError("%s is neither a string nor a macro." % target)

    api.find_user_code = find_user_code  # (%load reads a history range with it too)

    def chosen(opts, spec):
        """The inputs %history shows: RANGES, the last N with -l [N] (10 by default), those that
        match a glob pattern with -g [PATTERN] (all of them without one)."""
        if opts.get("l"):
            limit = int(spec) if spec.strip().isdigit() else 10
            before = inputs("")  # (not the %history cell itself)
            return before[-limit:] if limit else []
        if opts.get("g"):
            return matching("*%s*" % spec.strip() if spec.strip() else "*", bool(opts.get("t")))
        return inputs(spec, with_current=True)

    def history(arg, frame):
        """%history [-n] [-o] [-p] [-t] [-f FILE] [-l [N] | -g [PATTERN] | RANGES]: the session's
        inputs (-n numbered, -o with outputs, -p with >>> prompts, -t translated into Python as
        IPython spells it, -f written to FILE, -l the last N, -g those matching PATTERN)."""
        opts, spec = _history_args(arg, UsageError)
        lines = []
        for number, source in chosen(opts, spec):
            if opts.get("t"):
                source = ipython_form(source)
            # As IPython prints them (tabs as four spaces; a number, then the input on its line, or
            # below it when it has several). An input this kernel never saw (a JavaScript cell's
            # number, a cell before a restart) is no line at all.
            text = source.expandtabs(4).rstrip()
            if not text:
                continue
            multiline = "\n" in text
            if opts.get("p"):
                text = ">>> " + text.replace("\n", "\n... ") + ("\n..." if multiline else "")
            if opts.get("n"):
                text = "%s:%s%s" % (str(number).rjust(4), "\n" if multiline else " ", text)
            lines.append(text)
            if opts.get("o") and number in api.Out:
                lines.append(repr(api.Out[number]))
        text = "\n".join(lines)
        if opts.get("f"):
            path = os.path.expanduser(opts["f"])
            if os.path.exists(path) and not _overwrite(api, path, arg, "history"):
                return None
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text + ("\n" if text else ""))
            return None
        if text:
            print(text)
        return None

    reg.line_magic("history")(history)
    reg.line_magic("hist")(history)

    @reg.line_magic("macro")
    def macro(arg, frame):
        """%macro NAME RANGES: NAME runs those inputs again when it is typed as a cell (RANGES may
        also name a string or another macro)."""
        opts, rest = parse_options(arg, "rq", strict="rq")
        parts = rest.split(None, 1)
        if not parts:
            return sorted(k for k, v in api.user_ns.items() if isinstance(v, Macro))
        if len(parts) < 2:
            raise UsageError("%macro insufficient args; usage '%macro name n1-n2 n3-4...")
        try:
            code = find_user_code(parts[1])
        except (ValueError, TypeError) as exc:
            print(exc.args[0])
            return
        made = Macro(code)
        api.user_ns[parts[0]] = made
        print("Macro `%s` created. To execute, type its name (without quotes)." % parts[0])
        print("=== Macro contents: ===")
        print(made, end=" ")

    def latest(pattern, skip):
        """The newest input before this cell that matches `pattern` (a glob) and names no magic of
        `skip` (a %rerun or a %recall is not itself repeated)."""
        for _, source in reversed(matching(pattern)):
            if not any(word in source for word in skip):
                return source
        return None

    reruns = {"depth": 0}

    @reg.line_magic("rerun")
    def rerun(arg, frame):
        """%rerun [-l N | -g PATTERN | RANGES]: runs inputs again (the last one by default; -l the
        last N; -g the newest that contains PATTERN), as IPython: what runs is printed first."""
        opts, spec = parse_options(arg, "", "lg", strict="l:g:")
        if "l" in opts:
            try:
                count = int(opts["l"])
            except ValueError:
                print("Number of lines must be an integer")
                return None
            if count <= 0:
                print("Requested 0 last lines - nothing to run" if count == 0 else "Number of lines to rerun cannot be negative")
                return None
            picked = inputs("")[-count:]
        elif "g" in opts:
            found = latest("*%s*" % opts["g"], ("rerun",))
            picked = [(0, found)] if found is not None else []
        else:
            picked = inputs(spec) if spec.strip() else inputs("")[-1:]
        chosen_inputs = [source for _, source in picked]
        if not chosen_inputs:
            print("No lines in history match specification")
            return None
        if reruns["depth"] >= 3:
            # (`%rerun -l 2` of two %reruns would run itself without end)
            raise UsageError("%rerun would run a %rerun that runs itself again: stopped")
        code = "\n".join(chosen_inputs)
        print("=== Executing: ===")
        print(code)
        print("=== Output: ===")
        reruns["depth"] += 1
        try:
            return value_of(api.run_source(api.transform(code), "<rerun>"), api)
        finally:
            reruns["depth"] -= 1

    def recall(arg, frame):
        """%recall [RANGES | EXPRESSION | TEXT] (also %rep): an earlier input (or the last result,
        or an expression's value, or the newest input containing TEXT) as the next cell's text,
        to edit before it runs; where no cell can be edited (the eval tool, `run`), it is printed."""
        arg = arg.strip()
        if not arg:
            text = str(api.user_ns.get("_", ""))
        else:
            text = "\n".join(source for _, source in inputs(arg)) if any(c.isdigit() for c in arg) else ""
            if not text:
                try:
                    text = str(eval(arg, api.user_ns))
                except Exception:
                    text = latest("*%s*" % arg, ("recall", "rep")) or ""
            if not text:
                print("Couldn't evaluate or find in history:", arg)
                return None
        if api.stdin_allowed:
            api.status("set_next_input", text=text.rstrip(), replace=False)
        else:
            print(text.rstrip())
        return None

    reg.line_magic("recall")(recall)
    reg.line_magic("rep")(recall)

    @reg.line_magic("save")
    def save(arg, frame):
        """%save [-r] [-f] [-a] FILE [RANGES]: writes inputs to a Python file, translated into
        Python as IPython spells it (-r: as typed, in FILE.ipy); an existing FILE is replaced only
        when you say so (-f: without asking), -a appends."""
        opts, rest = parse_options(arg, "fra", strict="fra")
        parts = rest.split(None, 1)
        if not parts:
            raise UsageError("Missing filename.")
        raw = bool(opts.get("r"))
        path = parts[0] if parts[0].endswith((".py", ".ipy")) else parts[0] + (".ipy" if raw else ".py")
        path = os.path.expanduser(path)
        exists = os.path.isfile(path)
        if exists and not opts.get("f") and not opts.get("a") and not _overwrite(api, path, arg):
            return
        try:
            code = find_user_code(parts[1] if len(parts) > 1 else "", raw)
        except (ValueError, TypeError) as exc:
            print(exc.args[0])
            return
        with open(path, "a" if opts.get("a") else "w", encoding="utf-8") as handle:
            if not exists or not opts.get("a"):
                handle.write("# coding: utf-8\n")
            handle.write(code if code.endswith("\n") else code + "\n")
        print("The following commands were written to file `%s`:" % path)
        print(code)

    @reg.line_magic("notebook")
    def notebook(arg, frame):
        """%notebook FILE: the session's inputs as a Jupyter notebook (nbformat 4)."""
        import json

        path = os.path.expanduser(arg.strip())
        if not path:
            raise UsageError("%notebook needs a file name")
        import uuid

        cells = inputs("")
        if not cells:
            raise ValueError("History is empty, cannot export")
        document = {
            # (as IPython's: each input with its number; nbformat 4.5 wants an id on each cell)
            "cells": [
                {
                    "cell_type": "code",
                    "execution_count": number,
                    "id": uuid.uuid4().hex[:8],
                    "metadata": {},
                    "outputs": [],
                    "source": source,
                }
                for number, source in cells
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=1)

    @reg.line_magic("tb")
    def tb(arg, frame):
        """The traceback of the last error again."""
        if api.last_error is None:
            raise UsageError("No traceback available to show.")
        api.show_traceback(api.last_error)
