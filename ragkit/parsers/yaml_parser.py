"""YamlOutputParser: a pydantic object from a YAML reply (``yaml.safe_load``; needs PyYAML).

Example:
    >>> from pydantic import BaseModel
    >>> class Part(BaseModel):
    ...     name: str
    ...     grams: int
    >>> YamlOutputParser(pydantic_object=Part).invoke("```yaml\\nname: chain\\ngrams: 250\\n```")
    Part(name='chain', grams=250)
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ValidationError

from ragkit.errors import ConfigurationError, OutputParserException
from ragkit.parsers.base import BaseOutputParser
from ragkit.parsers.format_instructions import YAML_FORMAT_INSTRUCTIONS, reduced_schema

_FENCE = re.compile(r"^```(?:ya?ml)?(?P<yaml>[^`]*)", re.M | re.S)


def _yaml() -> Any:
    try:
        import yaml
    except ImportError as e:
        raise ConfigurationError("YamlOutputParser needs PyYAML: pip install pyyaml") from e
    return yaml


class YamlOutputParser(BaseOutputParser):
    """A validated ``pydantic_object`` from the reply's YAML (a ```yaml fence or the bare text)."""

    def __init__(self, pydantic_object: type[BaseModel]) -> None:
        self.pydantic_object = pydantic_object

    @property
    def OutputType(self) -> Any:  # noqa: N802 - LangChain's name
        return self.pydantic_object

    def parse(self, text: str) -> Any:
        yaml = _yaml()
        match = _FENCE.search(text.strip())
        body = match.group("yaml") if match else text
        try:
            data = yaml.safe_load(body)
            return self.pydantic_object.model_validate(data)
        except (yaml.YAMLError, ValidationError) as e:
            raise OutputParserException(
                f"Failed to parse {self.pydantic_object.__name__} from the YAML reply ({e}). "
                f"Text: {text!r:.300}",
                llm_output=text,
            ) from e

    def get_format_instructions(self) -> str:
        schema = reduced_schema(self.pydantic_object, ensure_ascii=True)
        return YAML_FORMAT_INSTRUCTIONS.format(schema=schema)
