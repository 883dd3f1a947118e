"""Timing and profiling: %time / %%time, %timeit / %%timeit, %prun / %%prun, with IPython's
output. Their arguments are code, so they are not expanded; IPython syntax inside them works."""
import math
import os
import sys
import time


def format_time(timespan, precision=3):
    """IPython's _format_time: `precision` significant digits in the largest fitting unit."""
    if timespan >= 60.0:
        parts = []
        leftover = timespan
        for suffix, length in (("d", 86400), ("h", 3600), ("min", 60), ("s", 1)):
            value = int(leftover / length)
            if value > 0:
                leftover = leftover % length
                parts.append("%d%s" % (value, suffix))
            if leftover < 1:
                break
        return " ".join(parts)
    units = ["s", "ms", "\u00b5s", "ns"]
    scaling = [1, 1e3, 1e6, 1e9]
    order = min(-int(math.floor(math.log10(timespan)) // 3), 3) if timespan > 0.0 else 3
    return "%.*g %s" % (precision, timespan * scaling[order], units[order])


def _cpu():
    """(user, system) CPU seconds of this process, at microsecond resolution where available."""
    try:
        import resource

        usage = resource.getrusage(resource.RUSAGE_SELF)
        return usage.ru_utime, usage.ru_stime
    except ImportError:  # pragma: no cover - not POSIX
        import os

        times = os.times()
        return times.user, times.system


def profile_call(api, start, opts):
    """%prun and %run -p, as IPython's one profiler for both: `start(profile)` runs the code under
    a cProfile profile, whose stats are printed as IPython prints them (sorted by -s KEY, internal
    time unless given; cut to -l LIMIT; file paths stripped; not at all with -q), -D FILE keeping
    the raw stats and -T FILE the printout. Returns the stats (the cell's value with -r)."""
    import io

    cProfile = api.private_import("cProfile")
    pstats = api.private_import("pstats")
    profile = cProfile.Profile()
    caught = ""
    try:
        start(profile)
    except SystemExit:
        caught = "*** SystemExit exception caught in code being profiled."
    printout = io.StringIO()
    stats = pstats.Stats(profile, stream=printout)
    _leave_out_kernel(stats)
    stats.strip_dirs().sort_stats(*opts.get("s", ["time"]))
    stats.print_stats(*[_limit(limit) for limit in opts.get("l", [])])
    stats.stream = sys.stdout
    text = printout.getvalue().rstrip()
    if not opts.get("q"):
        print(text)
    print(caught, end=" ")
    if opts.get("D"):
        profile.dump_stats(opts["D"])
        print("\n*** Profile stats marshalled to file %r.%s" % (opts["D"], caught))
    if opts.get("T"):
        with open(opts["T"], "w", encoding="utf-8") as handle:
            handle.write(text)
        print("\n*** Profile printout saved to text file %r.%s" % (opts["T"], caught))
    return stats


def _limit(text):
    """A -l LIMIT as pstats takes it: a count, a fraction, or a regular expression."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _leave_out_kernel(stats):
    """Takes the kernel's own functions out of the stats (writing a cell's output goes through
    them), and the built-ins only they called that call none of the code's (not the `exec` that
    runs a %run script), as IPython's profile shows only the code's: the totals are counted again
    without them."""
    kernel = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    table = stats.stats
    gone = set(key for key in table if key[0].startswith(kernel))
    while gone:
        for key in gone:
            del table[key]
        orphans = set()
        for key, (_, _, _, _, callers) in table.items():
            if key[0] == "~" and callers and all(caller in gone for caller in callers):
                orphans.add(key)  # (called by the kernel alone: a built-in it used)
            for caller in gone:
                callers.pop(caller, None)
        calling = set(caller for _, _, _, _, callers in table.values() for caller in callers)
        gone = orphans - calling
    stats.total_calls = sum(nc for _, nc, _, _, _ in table.values())
    stats.prim_calls = sum(cc for cc, _, _, _, _ in table.values())
    stats.total_tt = sum(tt for _, _, tt, _, _ in table.values())


class TimeitResult(object):
    """What %timeit -o returns (IPython's attributes)."""

    def __init__(self, loops, repeat, best, worst, all_runs, precision=3):
        self.loops = loops
        self.repeat = repeat
        self.best = best
        self.worst = worst
        self.all_runs = all_runs
        self._precision = precision
        self.timings = [t / loops for t in all_runs]
        self.average = sum(self.timings) / len(self.timings)
        mean = self.average
        self.stdev = (sum((t - mean) ** 2 for t in self.timings) / len(self.timings)) ** 0.5

    def __str__(self):
        return "%s \u00b1 %s per loop (mean \u00b1 std. dev. of %d run%s, %s loop%s each)" % (
            format_time(self.average, self._precision),
            format_time(self.stdev, self._precision),
            self.repeat,
            "" if self.repeat == 1 else "s",
            "{:,}".format(self.loops),
            "" if self.loops == 1 else "s",
        )

    def _repr_pretty_(self, p, cycle):
        p.text("<TimeitResult : " + str(self) + ">")


def register(reg):
    api = reg.api
    from . import UsageError, parse_options, value_of

    def namespace(frame):
        """The user's names, with a function's locals over them when called from one."""
        if frame is None or frame.f_locals is frame.f_globals:
            return api.user_ns
        ns = dict(api.user_ns)
        ns.update(frame.f_locals)
        return ns

    def time_code(code, frame, cell):
        ast = api.private_import("ast")
        source = api.transform(code)
        start_parse = time.perf_counter()
        tree = ast.parse(source)
        parse_time = time.perf_counter() - start_parse
        if cell:
            run = lambda: value_of(api.run_source(code, want_value=True, register=False), api)  # noqa: E731
            compile_time = 0.0
        else:
            start_compile = time.perf_counter()
            if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
                compiled = compile(ast.Expression(tree.body[0].value), "<timed eval>", "eval")
                run = lambda: eval(compiled, frame.f_globals, frame.f_locals)  # noqa: E731
            else:
                compiled = compile(tree, "<timed exec>", "exec")
                run = lambda: exec(compiled, frame.f_globals, frame.f_locals)  # noqa: E731
            compile_time = time.perf_counter() - start_compile
        cpu_start, wall_start = _cpu(), time.perf_counter()
        try:
            value = run()
        except Exception:
            api.show_traceback()  # IPython shows it, and the cell goes on without the times
            return None
        print_times(cpu_start, wall_start, compile_time, parse_time)
        return value

    def print_times(cpu_start, wall_start, compile_time, parse_time):
        wall = time.perf_counter() - wall_start
        cpu_end = _cpu()
        user, system = cpu_end[0] - cpu_start[0], cpu_end[1] - cpu_start[1]
        print("CPU times: user %s, sys: %s, total: %s" % (format_time(user), format_time(system), format_time(user + system)))
        print("Wall time: %s" % format_time(wall))
        if compile_time > 0.1:
            print("Compiler : %s" % format_time(compile_time))
        if parse_time > 0.1:
            print("Parser   : %s" % format_time(parse_time))
        api.status("time", ms=round(wall * 1000, 3))

    @reg.line_magic("time", expand=False)
    def time_line(arg, frame):
        """Times one statement or expression (CPU and wall time); returns its value. (Nothing to
        run is timed too, as in IPython.)"""
        return time_code(arg, frame, False)

    @reg.cell_magic("time")
    def time_cell(line, body, body_line, frame):
        """Times the cell's body; returns its last expression's value."""
        if line.strip():
            raise UsageError("Can't use statement directly after '%%time'!")
        return time_code("\n" * (body_line - 1) + body, frame, True)

    def timeit(arg, body, frame):
        opts, rest = parse_options(arg, "qotc", "nrp", strict="n:r:tcp:qo")
        setup, stmt = "pass", body
        if stmt is None:
            stmt = rest
        elif rest:
            setup = rest
        if not stmt.strip() and body is None:
            return None  # (as IPython's: %timeit alone does nothing)
        stmt, setup = api.transform(stmt), api.transform(setup)
        api.private_import("ast").parse(stmt)  # a SyntaxError here, not inside timeit's wrapper
        timer = api.private_import("timeit").Timer(stmt, setup, globals=namespace(frame))
        repeat = int(opts.get("r", 7))
        number = int(opts.get("n", 0))
        if not number:
            for index in range(10):
                number = 10**index
                if timer.timeit(number) >= 0.2:
                    break
        runs = timer.repeat(repeat, number)
        best, worst = min(runs) / number, max(runs) / number
        result = TimeitResult(number, repeat, best, worst, runs, int(opts.get("p", 3)))
        if not opts.get("q"):
            if worst > 4 * best and best > 0 and worst > 1e-6:
                print(
                    "The slowest run took %0.2f times longer than the fastest. This could mean that an "
                    "intermediate result is being cached." % (worst / best)
                )
            print(result)
        api.status("timeit", ms=round(result.average * 1000, 6), loops=number, runs=repeat)
        return result if opts.get("o") else None

    @reg.line_magic("timeit", expand=False)
    def timeit_line(arg, frame):
        """%timeit [-n N] [-r R] [-q] [-o] [-p P] statement: best timing over repeated runs."""
        return timeit(arg, None, frame)

    @reg.cell_magic("timeit")
    def timeit_cell(line, body, body_line, frame):
        """%%timeit [options] [setup]: times the cell's body."""
        return timeit(line, body, frame)

    def prun(arg, code, frame):
        opts, rest = parse_options(arg, "qr", "slTD", multi="sl")
        source = api.transform(code if code is not None else rest)
        ns = namespace(frame)
        stats = profile_call(api, lambda profile: profile.runctx(source, ns, ns), opts)
        return stats if opts.get("r") else None

    @reg.line_magic("prun", expand=False)
    def prun_line(arg, frame):
        """%prun [-q] [-r] [-s KEY] [-l LIMIT] [-D FILE] [-T FILE] statement: profiles the statement."""
        return prun(arg, None, frame)

    @reg.cell_magic("prun")
    def prun_cell(line, body, body_line, frame):
        """%%prun [options]: profiles the cell's body."""
        return prun(line, body, frame)
