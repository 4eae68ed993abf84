"""Reference queries of our own, beside the `@reference.*` patterns of the grammars' tags.scm.

Same conventions as tree-sitter's tags.scm: `@reference.KIND` on the use, `@name` on the
name. Added where a wheel ships no reference patterns (C, C++, C#, Kotlin, Swift, bash) or
misses uses a reader looks for (Python's base classes and decorators).
"""

_C_CALLS = """
(call_expression function: [
  (identifier) @name
  (field_expression field: (field_identifier) @name)]) @reference.call
"""

EXTRA_REFERENCE_QUERIES: dict[str, str] = {
    "python": """
(class_definition superclasses: (argument_list [
  (identifier) @name
  (attribute attribute: (identifier) @name)])) @reference.class
(decorator [
  (identifier) @name
  (attribute attribute: (identifier) @name)]) @reference.call
""",
    "c": _C_CALLS,
    "objc": _C_CALLS,
    "cpp": _C_CALLS
    + """
(call_expression function: (qualified_identifier name: (identifier) @name)) @reference.call
""",
    "csharp": """
(invocation_expression function: [
  (identifier) @name
  (member_access_expression name: (identifier) @name)]) @reference.call
(object_creation_expression type: (identifier) @name) @reference.class
""",
    "kotlin": """
(call_expression [
  (identifier) @name
  (navigation_expression (identifier) @name .)]) @reference.call
""",
    "swift": """
(call_expression [
  (simple_identifier) @name
  (navigation_expression suffix: (navigation_suffix suffix: (simple_identifier) @name))])
  @reference.call
""",
    "shell": """
(command name: (command_name (word) @name)) @reference.call
""",
}
