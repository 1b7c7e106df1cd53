"""PandasDataFrameOutputParser: answer questions about a DataFrame with ``operation:target`` replies.

Needs ``pandas`` (not a ragkit dependency; the class refuses to build without it). As
LangChain's: ``column:price`` gives ``{"price": <Series>}``, ``column:price[0,2]`` those
rows (one row: the value), ``row:2`` row 2 (``row:2[price]``: one cell), and
``mean:price[1..3]`` any column method over those rows, ``{"mean": 10.0}``.

Example:
    >>> import pandas as pd
    >>> df = pd.DataFrame({"price": [5, 10, 15]})
    >>> float(PandasDataFrameOutputParser(dataframe=df).invoke("mean:price")["mean"])
    10.0
"""

from __future__ import annotations

import re
from typing import Any

from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.parsers.base import BaseOutputParser

_REPLY = re.compile(r"^\s*(?P<op>\w+)\s*:\s*(?P<target>[^\[\]\s]+)\s*(?:\[(?P<args>[^\]]*)\])?\s*$")


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as e:
        raise ConfigurationError(
            "PandasDataFrameOutputParser needs pandas, which ragkit does not install: pip install pandas"
        ) from e
    return pandas


class PandasDataFrameOutputParser(BaseOutputParser):
    """Reads ``operation:column_or_row[args]`` replies against ``dataframe``."""

    def __init__(self, dataframe: Any) -> None:
        pd = _pandas()
        if not isinstance(dataframe, pd.DataFrame):
            raise ConfigurationError(
                f"PandasDataFrameOutputParser needs a pandas DataFrame, got {type(dataframe).__name__}"
            )
        if dataframe.empty:
            raise ConfigurationError("PandasDataFrameOutputParser: the DataFrame is empty")
        self.dataframe = dataframe

    def _fail(self, text: str, why: str) -> OutputParserException:
        return OutputParserException(
            f"Cannot answer {text!r:.200} from the DataFrame: {why}. "
            f"Columns: {list(self.dataframe.columns)}; rows: 0..{len(self.dataframe) - 1}",
            llm_output=text,
        )

    def _selection(self, args: str, text: str) -> list[Any]:
        args = args.strip()
        if re.fullmatch(r"\d+\s*\.\.\s*\d+", args):
            first, last = (int(x) for x in args.split(".."))
            return list(range(first, last + 1))
        items = [a.strip() for a in args.split(",") if a.strip()]
        if not items:
            raise self._fail(text, f"empty selection [{args}]")
        return [int(a) if a.isdigit() else a for a in items]

    def parse(self, text: str) -> dict[str, Any]:
        match = _REPLY.match(text.strip().strip("`").strip())
        if match is None:
            raise self._fail(text, "expected 'operation:target' or 'operation:target[selection]'")
        op, target, args = match.group("op"), match.group("target"), match.group("args")
        frame = self.dataframe
        chosen = self._selection(args, text) if args is not None else None
        try:
            if op == "column":
                column = frame[target]
                if chosen is None:
                    return {target: column}
                picked = column[column.index.isin(chosen)]
                return {target: picked.iloc[0] if len(chosen) == 1 else picked}
            if op == "row":
                row = frame.iloc[int(target)]
                if chosen is None:
                    return {target: row}
                return {target: row[chosen[0]] if len(chosen) == 1 else row[chosen]}
            if target not in frame.columns:
                raise self._fail(text, f"no column {target!r}")
            column = frame[target]
            if chosen is not None:
                column = column[column.index.isin(chosen)]
            method = getattr(column, op, None)
            if op.startswith("_") or not callable(method):
                raise self._fail(text, f"{op!r} is not an operation on a column")
            return {op: method()}
        except (KeyError, IndexError, ValueError, TypeError) as e:
            raise self._fail(text, f"{type(e).__name__}: {e}") from e

    def get_format_instructions(self) -> str:
        return (
            "Answer with one line 'operation:target[selection]': operation is 'column', 'row' or "
            "a method such as mean, sum, max, min; target is a column name (a row number for "
            "'row'); the optional [selection] is rows 'a..b' or 'i,j,k' (column names for "
            "'row'). Columns: "
            f"{list(self.dataframe.columns)}"
        )
