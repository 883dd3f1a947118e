"""%pip: pip in the kernel's own Python, with the modules of what it installed unloaded so the
next import loads them fresh."""
import os
import re
import sys

_VALUED = ("-r", "-c", "-e", "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-t", "--target")


# Where pip's own arguments end in a shell command line: a pipe, a redirection, a list.
_SHELL_OPERATOR = re.compile(r"^(\||\|\||&&|;|&|[0-9]*[<>]+&?[0-9]*)")


def pip(api, arg):
    """Runs pip through the shell, as IPython's %pip does: `%pip list | head` pipes its output."""
    import shlex

    from .system import run_shell

    code = run_shell(api, "%s -m pip %s" % (shlex.quote(sys.executable), arg))
    args = pip_args(arg)
    if args and args[0] == "install" and code == 0:
        evict(requirement_names(args[1:]))
        print("Note: modules of the installed packages were unloaded; the next import loads them fresh.")
    if code:
        print("pip exited with code %d" % code, file=sys.stderr)


def pip_args(arg):
    """pip's own arguments in `arg`: its shell words up to the first pipe, redirection or list."""
    import shlex

    lexer = shlex.shlex(arg, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    args = []
    try:
        for word in lexer:
            if _SHELL_OPERATOR.match(word) and word.strip("|&;<>0123456789") == "":
                if word[0] in "<>" and args and args[-1].isdigit():
                    args.pop()  # (the 2 of 2>/dev/null)
                break
            args.append(word)
    except ValueError:  # an open quote: the shell says so
        return args
    return args


def requirement_names(args):
    names = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in _VALUED:
            skip = True
            continue
        if a.startswith("-"):
            continue
        base = os.path.basename(a)
        if base.endswith((".whl", ".tar.gz", ".zip")):
            names.append(base.split("-")[0])
        else:
            names.append(re.split(r"[\[<>=!~; @]", a, 1)[0])
    return [n for n in names if n]


def import_names(dist_name):
    """Top-level import names of an installed distribution (Pillow -> PIL), from its metadata."""
    from importlib import metadata

    try:
        dist = metadata.distribution(dist_name)
    except Exception:
        return {dist_name.replace("-", "_").lower()}
    top = dist.read_text("top_level.txt")
    if top:
        return {line.strip() for line in top.splitlines() if line.strip()}
    names = set()
    for path in dist.files or []:
        parts = path.parts
        if not parts or parts[0].endswith((".dist-info", ".egg-info")) or parts[0] in ("..", "__pycache__"):
            continue
        head = parts[0]
        if head.endswith(".py"):
            names.add(head[:-3])
        elif len(parts) > 1:
            names.add(head)
    return names or {dist_name.replace("-", "_").lower()}


def evict(dist_names):
    import importlib

    importlib.invalidate_caches()
    for dist in dist_names:
        for top in import_names(dist):
            for mod in list(sys.modules):
                if mod == top or mod.startswith(top + "."):
                    del sys.modules[mod]
