"""The notebook's width, told as a terminal tells its own: a notebook sends COLUMNS with each
cell (so shutil.get_terminal_size(), and the programs a cell starts, see it), and pandas gets it
as display.width, as IPython in a terminal gives pandas the terminal's. Only a width the front end
sent is told (`run`, `tool` and the MCP server send none); a display.width the user chose is kept.
No imports of pandas here: it is told when a cell has imported it (the server's import patch)."""
import sys

# pandas' own default display.width: a width still at it is not the user's choice.
PANDAS_DEFAULT = 80

_state = {"columns": None, "told": None}


def columns_from(value):
    """A positive whole number of columns from COLUMNS' text, else None."""
    try:
        columns = int(str(value).strip())
    except ValueError:
        return None
    return columns if columns > 0 else None


def front_end_sent(env):
    """The execute request's env: when it sets COLUMNS, that is the front end's width now."""
    if isinstance(env, dict) and "COLUMNS" in env:
        _state["columns"] = columns_from(env["COLUMNS"]) if env["COLUMNS"] is not None else None
        tell_pandas(sys.modules.get("pandas"))


def tell_pandas(pandas):
    """Sets pandas' display.width to the front end's width, unless the user set another."""
    columns = _state["columns"]
    if pandas is None or columns is None:
        return
    get_option = getattr(pandas, "get_option", None)
    set_option = getattr(pandas, "set_option", None)
    if get_option is None or set_option is None:
        return  # (a module of that name that is not pandas, or pandas half imported)
    current = get_option("display.width")
    if current != _state["told"] and current != PANDAS_DEFAULT:
        return  # the user's own width
    if current != columns:
        set_option("display.width", columns)
    _state["told"] = columns
