"""IPython's variable expansion in magic arguments and shell commands: `$name`, `${expr}` and
`{expr}` are evaluated in the caller's namespace (its locals over the user's globals), `{x!r}`
and `{x!s}` convert, `$$` and `{{ }}` are literal. It is all or nothing, as in IPython: if any
part does not evaluate (a shell variable such as $HOME, awk's {print $1}), the text is left as
it was for the shell."""
import re
import string

# $name not inside single quotes (an even number of quotes follows it).
_DOLLAR = re.compile(r"(.*?)\$(\$?[\w\.]+)(?=([^']*'[^']*')*[^']*$)", re.S)


class _Formatter(string.Formatter):
    def parse(self, text):
        for literal, field, spec, conversion in string.Formatter.parse(self, text):
            done = 0
            pending = ""
            for match in _DOLLAR.finditer(literal):
                before, name = match.group(1, 2)
                if name.startswith("$"):
                    pending += before + name  # $$x is the literal $x
                else:
                    yield (pending + before, name, "", None)
                    pending = ""
                done = match.end()
            yield (pending + literal[done:], field, spec, conversion)

    def expand(self, text, ns):
        out = []
        for literal, field, spec, conversion in self.parse(text):
            out.append(literal)
            if field is None:
                continue
            if spec:
                field = field + ":" + spec  # a colon is slicing here, not a format spec
            value = eval(field, ns)
            out.append(self.format_field(self.convert_field(value, conversion), ""))
        return "".join(out)


_FORMATTER = _Formatter()


def expand(text, frame, user_ns):
    """`text` with the expansions done, or unchanged if any of them fails."""
    if "$" not in text and "{" not in text:
        return text
    ns = dict(user_ns)
    if frame is not None and frame.f_locals is not frame.f_globals:
        ns.update(frame.f_locals)
    try:
        return _FORMATTER.expand(text, ns)
    except Exception:
        return text
