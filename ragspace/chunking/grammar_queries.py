"""Definition queries of our own, for grammars whose wheel ships no (or too narrow) tags.scm.

Same conventions as tree-sitter's tags.scm: `@definition.KIND` on the whole definition,
`@name` on its name; `@receiver` (ours) names the type a Go method belongs to.
"""

_TYPESCRIPT = """
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(abstract_class_declaration name: (type_identifier) @name) @definition.class
"""
EXTRA_QUERIES: dict[str, str] = {
    "ts": _TYPESCRIPT,
    "tsx": _TYPESCRIPT,
    "go": """
(method_declaration
  receiver: (parameter_list (parameter_declaration
    type: [(type_identifier) @receiver
           (pointer_type (type_identifier) @receiver)
           (generic_type type: (type_identifier) @receiver)
           (pointer_type (generic_type type: (type_identifier) @receiver))]))
  name: (field_identifier) @name) @definition.method
""",
    "rust": """
(impl_item type: [
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (reference_type type: (type_identifier) @name)
  (scoped_type_identifier name: (type_identifier) @name)]) @definition.impl
""",
    "java": """
(constructor_declaration name: (identifier) @name) @definition.method
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
""",
    "csharp": """
(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.class
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(namespace_declaration name: (_) @name) @definition.module
(file_scoped_namespace_declaration name: (_) @name) @definition.module
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(property_declaration name: (identifier) @name) @definition.property
""",
    "cpp": """
(namespace_definition name: (_) @name) @definition.module
""",
    "kotlin": """
(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.object
(companion_object name: (identifier) @name) @definition.object
(function_declaration name: (identifier) @name) @definition.function
""",
    "shell": """
(function_definition name: (word) @name) @definition.function
""",
    "haskell": """
(data_type name: (name) @name) @definition.type
(newtype name: (name) @name) @definition.type
(type_synonym name: (name) @name) @definition.type
(class name: (name) @name) @definition.interface
(instance name: (name) @name) @definition.impl
(signature name: (variable) @name) @definition.function
(function name: (variable) @name) @definition.function
(bind name: (variable) @name) @definition.function
""",
    "zig": """
(variable_declaration (identifier) @name
  [(struct_declaration) (enum_declaration) (union_declaration) (opaque_declaration)]
) @definition.class
(function_declaration name: (identifier) @name) @definition.function
(test_declaration (string (string_content) @name)) @definition.test
""",
    "objc": """
(class_interface . (identifier) @name) @definition.class
(class_implementation . (identifier) @name) @definition.class
(protocol_declaration . (identifier) @name) @definition.interface
(method_definition (identifier) @name) @definition.method
(method_declaration (identifier) @name) @definition.method
(function_definition declarator: (function_declarator declarator: (identifier) @name))
  @definition.function
(struct_specifier name: (type_identifier) @name body: (_)) @definition.class
""",
    "julia": """
(module_definition name: (identifier) @name) @definition.module
(struct_definition (type_head [(identifier) @name (binary_expression . (identifier) @name)]))
  @definition.class
(abstract_definition (type_head [(identifier) @name (binary_expression . (identifier) @name)]))
  @definition.class
(function_definition (signature (call_expression . (identifier) @name))) @definition.function
(macro_definition (signature (call_expression . (identifier) @name))) @definition.macro
(assignment . (call_expression . (identifier) @name)) @definition.function
""",
    "groovy": """
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(function_definition name: (identifier) @name) @definition.function
""",
    "gdscript": """
(class_definition name: (name) @name) @definition.class
(function_definition name: (name) @name) @definition.function
(constructor_definition) @definition.function
(signal_statement name: (name) @name) @definition.signal
(enum_definition name: (name) @name) @definition.enum
""",
    "fsharp": """
(named_module name: (_) @name) @definition.module
(module_defn . (_) @name) @definition.module
(namespace name: (_) @name) @definition.module
(type_definition (_ (type_name type_name: (_) @name))) @definition.class
(exception_definition exception_name: (_) @name) @definition.class
(function_or_value_defn (function_declaration_left . (_) @name)) @definition.function
(function_or_value_defn
  (value_declaration_left . (identifier_pattern (long_identifier_or_op (_) @name))))
  @definition.constant
(member_defn (method_or_prop_defn name: (property_or_ident method: (identifier) @name)))
  @definition.method
(member_defn (method_or_prop_defn name: (property_or_ident . (identifier) @name .)))
  @definition.method
""",
    "lua": """
(function_declaration
  name: (dot_index_expression table: (identifier) @receiver field: (identifier) @name))
  @definition.function
(function_declaration
  name: (method_index_expression table: (identifier) @receiver method: (identifier) @name))
  @definition.method
""",
}
