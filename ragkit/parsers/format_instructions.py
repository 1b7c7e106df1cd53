"""The format instructions parsers put in a prompt: LangChain's exact wording, as constants.

A model reads these words, so ragkit sends the same text LangChain does for the same parser
(a prompt ported from LangChain then behaves the same); ``tests/parsers/test_format_instructions.py``
compares each against the installed LangChain packages. ``{schema}``, ``{tags}`` and
``{format}`` are filled with ``str.format``.

Example:
    >>> STRUCTURED_LINE.format(name="a", type="string", description="the answer")
    '\\t"a": string  // the answer'
    >>> XML_FORMAT_INSTRUCTIONS.format(tags=["a"]).splitlines()[-2]
    "['a']"
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

PYDANTIC_FORMAT_INSTRUCTIONS = """The output should be formatted as a JSON instance that conforms to the JSON schema below.

As an example, for the schema {{"properties": {{"foo": {{"title": "Foo", "description": "a list of strings", "type": "array", "items": {{"type": "string"}}}}}}, "required": ["foo"]}}
the object {{"foo": ["bar", "baz"]}} is a well-formatted instance of the schema. The object {{"properties": {{"foo": ["bar", "baz"]}}}} is not well-formatted.

Here is the output schema:
```
{schema}
```"""  # noqa: E501

JSON_FORMAT_INSTRUCTIONS = """STRICT OUTPUT FORMAT:
- Return only the JSON value that conforms to the schema. Do not include any additional text, explanations, headings, or separators.
- Do not wrap the JSON in Markdown or code fences (no ``` or ```json).
- Do not prepend or append any text (e.g., do not write "Here is the JSON:").
- The response must be a single top-level JSON value exactly as required by the schema (object/array/etc.), with no trailing commas or comments.

The output should be formatted as a JSON instance that conforms to the JSON schema below.

As an example, for the schema {{"properties": {{"foo": {{"title": "Foo", "description": "a list of strings", "type": "array", "items": {{"type": "string"}}}}}}, "required": ["foo"]}} the object {{"foo": ["bar", "baz"]}} is a well-formatted instance of the schema. The object {{"properties": {{"foo": ["bar", "baz"]}}}} is not well-formatted.

Here is the output schema (shown in a code block for readability only \u2014 do not include any backticks or Markdown in your output):
```
{schema}
```"""  # noqa: E501

XML_FORMAT_INSTRUCTIONS = """The output should be formatted as a XML file.
1. Output should conform to the tags below.
2. If tags are not given, make them on your own.
3. Remember to always open and close all the tags.

As an example, for the tags ["foo", "bar", "baz"]:
1. String "<foo>
   <bar>
      <baz></baz>
   </bar>
</foo>" is a well-formatted instance of the schema.
2. String "<foo>
   <bar>
   </foo>" is a badly-formatted instance.
3. String "<foo>
   <tag>
   </tag>
</foo>" is a badly-formatted instance.

Here are the output tags:
```
{tags}
```"""

YAML_FORMAT_INSTRUCTIONS = """The output should be formatted as a YAML instance that conforms to the given JSON schema below.

# Examples
## Schema
```
{{"title": "Players", "description": "A list of players", "type": "array", "items": {{"$ref": "#/definitions/Player"}}, "definitions": {{"Player": {{"title": "Player", "type": "object", "properties": {{"name": {{"title": "Name", "description": "Player name", "type": "string"}}, "avg": {{"title": "Avg", "description": "Batting average", "type": "number"}}}}, "required": ["name", "avg"]}}}}}}
```
## Well formatted instance
```
- name: John Doe
  avg: 0.3
- name: Jane Maxfield
  avg: 1.4
```

## Schema
```
{{"properties": {{"habit": {{ "description": "A common daily habit", "type": "string" }}, "sustainable_alternative": {{ "description": "An environmentally friendly alternative to the habit", "type": "string"}}}}, "required": ["habit", "sustainable_alternative"]}}
```
## Well formatted instance
```
habit: Using disposable water bottles for daily hydration.
sustainable_alternative: Switch to a reusable water bottle to reduce plastic waste and decrease your environmental footprint.
```

Please follow the standard YAML formatting conventions with an indent of 2 spaces and make sure that the data types adhere strictly to the following JSON schema:
```
{schema}
```

Make sure to always enclose the YAML output in triple backticks (```). Please do not add anything other than valid YAML output!"""  # noqa: E501

STRUCTURED_FORMAT_INSTRUCTIONS = """The output should be a markdown code snippet formatted in the following schema, including the leading and trailing "```json" and "```":

```json
{{
{format}
}}
```"""  # noqa: E501

STRUCTURED_FORMAT_SIMPLE_INSTRUCTIONS = """
```json
{{
{format}
}}
```"""

#: One line of ``StructuredOutputParser``'s schema per ``ResponseSchema``.
STRUCTURED_LINE = '\t"{name}": {type}  // {description}'

#: ``DatetimeOutputParser``'s instructions; ``{examples}`` are three dates in the format.
DATETIME_FORMAT_INSTRUCTIONS = (
    "Write a datetime string that matches the following pattern: '{format}'.\n\n"
    "Examples: {examples}\n\n"
    "Return ONLY this string, no other words!"
)

#: The examples shown for the default ISO format (fixed, as LangChain's).
DATETIME_ISO_EXAMPLES = (
    "2023-07-04T14:30:00.000000Z",
    "1999-12-31T23:59:59.999999Z",
    "2025-01-01T00:00:00.000000Z",
)

#: What ``JsonOutputParser()`` without a schema asks for.
JSON_NO_SCHEMA_INSTRUCTIONS = "Return a JSON object."


def reduced_schema(model: type[BaseModel], *, ensure_ascii: bool = False) -> str:
    """``model``'s JSON schema without its top-level ``title`` and ``type``, as JSON text."""
    schema: dict[str, Any] = dict(model.model_json_schema())
    schema.pop("title", None)
    schema.pop("type", None)
    return json.dumps(schema, ensure_ascii=ensure_ascii)
