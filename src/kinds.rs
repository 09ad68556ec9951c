//! Node kinds and field names as numbers: for each grammar, the node kinds and fields the rules
//! use, resolved once per run (a `LazyLock` table) to tree-sitter's symbol and field ids.
//!
//! `Node::kind()` builds a `&str` (a symbol-name lookup plus UTF-8 validation) and
//! `child_by_field_name` compares field names as strings on every call: on a 21 MB tree these
//! cost more than the parse. Here `node.node_kind()` is one array lookup that yields an enum, and
//! `node.field(F::Value)` calls `child_by_field_id` with a precomputed id. The semantics are the
//! string ones exactly: a kind is matched by name, so every symbol id that carries the name
//! (aliases give one name several ids) maps to the same `Kind`; ERROR's id (65535) lies outside
//! the table and is resolved by name; a field the grammar lacks finds no child.

/// Declares the kind and field table of one grammar: a module with `Kind` (the kinds named, plus
/// `Other`), `Field`, and the extension trait `NodeExt` (`node_kind`, `field`, `fields`).
macro_rules! syntax_table {
    (
        $(#[$doc:meta])*
        $vis:vis mod $module:ident = $lang:expr;
        kinds { $($K:ident = $kname:literal),* $(,)? }
        fields { $($F:ident = $fname:literal),* $(,)? }
    ) => {
        $(#[$doc])*
        // The same items are generated for every grammar; each grammar's rules use a subset.
        #[allow(dead_code)]
        $vis mod $module {
            use std::sync::LazyLock;
            use tree_sitter::{Language, Node, TreeCursor};

            /// The node kinds the rules name; every other kind is `Other`.
            #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
            #[allow(dead_code)]
            pub enum Kind {
                $($K,)*
                Other,
            }

            impl Kind {
                /// Every named kind with its grammar name.
                pub const ALL: &[(Kind, &str)] = &[$((Kind::$K, $kname)),*];
                /// How many kinds (`Other` included): the size of a table indexed by kind.
                pub const COUNT: usize = Self::ALL.len() + 1;
                /// The kind with grammar name `name` (`Other` when the rules do not name it).
                pub fn named(name: &str) -> Kind {
                    Self::ALL
                        .iter()
                        .find(|(_, n)| *n == name)
                        .map_or(Kind::Other, |(k, _)| *k)
                }
                /// The kind of a symbol id.
                pub fn of_id(id: u16) -> Kind {
                    let t = &*TABLE;
                    match t.kinds.get(id as usize) {
                        Some(k) => *k,
                        // ERROR (65535) and other builtin ids past the table.
                        None => t.lang.node_kind_for_id(id).map_or(Kind::Other, Kind::named),
                    }
                }
            }

            /// The field names the rules use (named after the grammar's fields, so a grammar whose
            /// fields share a suffix gives variants that share it).
            #[derive(Clone, Copy, Debug, PartialEq, Eq)]
            #[allow(dead_code, clippy::enum_variant_names)]
            pub enum Field {
                $($F,)*
            }

            impl Field {
                /// Every field with its grammar name.
                pub const ALL: &[(Field, &str)] = &[$((Field::$F, $fname)),*];
                /// The grammar's id of this field (0 when the grammar has no such field).
                pub fn id(self) -> u16 {
                    TABLE.fields[self as usize]
                }
            }

            struct Table {
                lang: Language,
                /// Symbol id → kind, for every id below `node_kind_count`.
                kinds: Vec<Kind>,
                /// `Field as usize` → field id.
                fields: Vec<u16>,
            }

            static TABLE: LazyLock<Table> = LazyLock::new(|| {
                let lang: Language = $lang;
                let kinds = (0..lang.node_kind_count())
                    .map(|id| lang.node_kind_for_id(id as u16).map_or(Kind::Other, Kind::named))
                    .collect();
                let fields = Field::ALL
                    .iter()
                    .map(|(_, name)| lang.field_id_for_name(name).map_or(0, |f| f.get()))
                    .collect();
                Table { lang, kinds, fields }
            });

            /// Kind and field access by id on this grammar's nodes.
            pub trait NodeExt<'t> {
                /// The node's kind (one table lookup; `Node::kind()` builds a string).
                fn node_kind(&self) -> Kind;
                /// The first child in field `f` (`child_by_field_name` without the string).
                fn field(&self, f: Field) -> Option<Node<'t>>;
                /// Every child in field `f`.
                fn fields<'c>(
                    &self,
                    f: Field,
                    cursor: &'c mut TreeCursor<'t>,
                ) -> impl Iterator<Item = Node<'t>> + 'c;
            }

            impl<'t> NodeExt<'t> for Node<'t> {
                #[inline]
                fn node_kind(&self) -> Kind {
                    Kind::of_id(self.kind_id())
                }
                #[inline]
                fn field(&self, f: Field) -> Option<Node<'t>> {
                    match f.id() {
                        0 => None,
                        id => self.child_by_field_id(id),
                    }
                }
                fn fields<'c>(
                    &self,
                    f: Field,
                    cursor: &'c mut TreeCursor<'t>,
                ) -> impl Iterator<Item = Node<'t>> + 'c {
                    // A field the grammar lacks: an id no child carries, so nothing matches.
                    let id = std::num::NonZeroU16::new(f.id()).unwrap_or(std::num::NonZeroU16::MAX);
                    self.children_by_field_id(id, cursor)
                }
            }

            #[cfg(test)]
            mod tests {
                use super::*;

                /// Every kind and field named exists in the grammar (a misspelt name would never
                /// match), and the table agrees with `Node::kind()` on every id.
                #[test]
                fn every_name_resolves_and_the_table_matches_kind_strings() {
                    let lang: Language = $lang;
                    for (k, name) in Kind::ALL {
                        // ERROR is the builtin id 65535, past the grammar's own ids.
                        let ids: Vec<u16> = (0..lang.node_kind_count() as u16)
                            .chain([u16::MAX])
                            .filter(|&id| lang.node_kind_for_id(id) == Some(*name))
                            .collect();
                        assert!(!ids.is_empty(), "no node kind `{name}` in the grammar");
                        assert!(ids.iter().all(|&id| Kind::of_id(id) == *k), "{name}");
                    }
                    for (f, name) in Field::ALL {
                        assert_ne!(f.id(), 0, "no field `{name}` in the grammar");
                        assert_eq!(lang.field_id_for_name(name).map(|x| x.get()), Some(f.id()));
                    }
                    for id in 0..lang.node_kind_count() as u16 {
                        let name = lang.node_kind_for_id(id).unwrap_or("");
                        assert_eq!(Kind::of_id(id), Kind::named(name), "{id} {name}");
                    }
                    assert_eq!(Kind::of_id(u16::MAX), Kind::named("ERROR"));
                }
            }
        }
    };
}

syntax_table! {
    /// tree-sitter-cuda: the kinds and fields of the hazard rules.
    pub mod cuda = crate::parse::language();
    kinds {
        Error = "ERROR",
        Identifier = "identifier",
        FieldIdentifier = "field_identifier",
        TypeIdentifier = "type_identifier",
        NamespaceIdentifier = "namespace_identifier",
        QualifiedIdentifier = "qualified_identifier",
        TemplateFunction = "template_function",
        TemplateMethod = "template_method",
        FieldExpression = "field_expression",
        CallExpression = "call_expression",
        KernelCallSyntax = "kernel_call_syntax",
        Comment = "comment",
        ArgumentList = "argument_list",
        InitializerList = "initializer_list",
        FunctionDefinition = "function_definition",
        AttributeSpecifier = "attribute_specifier",
        TypeQualifier = "type_qualifier",
        MsCallModifier = "ms_call_modifier",
        Global = "__global__",
        Device = "__device__",
        Host = "__host__",
        Declaration = "declaration",
        ParameterDeclaration = "parameter_declaration",
        OptionalParameterDeclaration = "optional_parameter_declaration",
        FieldDeclaration = "field_declaration",
        FieldDeclarationList = "field_declaration_list",
        InitDeclarator = "init_declarator",
        ArrayDeclarator = "array_declarator",
        Enumerator = "enumerator",
        NumberLiteral = "number_literal",
        ForStatement = "for_statement",
        WhileStatement = "while_statement",
        DoStatement = "do_statement",
        ReturnStatement = "return_statement",
        CaseStatement = "case_statement",
        CompoundStatement = "compound_statement",
        ExpressionStatement = "expression_statement",
        AssignmentExpression = "assignment_expression",
        BinaryExpression = "binary_expression",
        UpdateExpression = "update_expression",
        CastExpression = "cast_expression",
        SubscriptExpression = "subscript_expression",
        ParenthesizedExpression = "parenthesized_expression",
        PointerExpression = "pointer_expression",
        TemplateArgumentList = "template_argument_list",
        StaticAssertDeclaration = "static_assert_declaration",
        ParameterList = "parameter_list",
        NamespaceDefinition = "namespace_definition",
        NamespaceAliasDefinition = "namespace_alias_definition",
        StructSpecifier = "struct_specifier",
        ClassSpecifier = "class_specifier",
        EnumSpecifier = "enum_specifier",
        TemplateDeclaration = "template_declaration",
        TemplateType = "template_type",
        AliasDeclaration = "alias_declaration",
        TypeDefinition = "type_definition",
        FunctionDeclarator = "function_declarator",
        IfStatement = "if_statement",
        ConditionalExpression = "conditional_expression",
        ConditionClause = "condition_clause",
        ElseClause = "else_clause",
        UnaryExpression = "unary_expression",
    }
    fields {
        Alternative = "alternative",
        Argument = "argument",
        Arguments = "arguments",
        Body = "body",
        Condition = "condition",
        Consequence = "consequence",
        Declarator = "declarator",
        DefaultValue = "default_value",
        Field = "field",
        Function = "function",
        Indices = "indices",
        Initializer = "initializer",
        Left = "left",
        Name = "name",
        Operator = "operator",
        Parameters = "parameters",
        Right = "right",
        Size = "size",
        Type = "type",
        Update = "update",
        Value = "value",
    }
}

#[allow(unused_imports)]
pub(crate) use syntax_table;

/// Whether a tree-sitter-cuda symbol's name ends in `identifier` (`identifier`,
/// `field_identifier`, `type_identifier`, …): ERROR recovery changes which one a name gets.
pub fn cuda_identifier_like(id: u16) -> bool {
    use std::sync::LazyLock;
    static LIKE: LazyLock<Vec<bool>> = LazyLock::new(|| {
        let lang = crate::parse::language();
        (0..lang.node_kind_count() as u16)
            .map(|id| {
                lang.node_kind_for_id(id)
                    .is_some_and(|k| k.ends_with("identifier"))
            })
            .collect()
    });
    match LIKE.get(id as usize) {
        Some(b) => *b,
        None => crate::parse::language()
            .node_kind_for_id(id)
            .is_some_and(|k| k.ends_with("identifier")),
    }
}

syntax_table! {
    /// tree-sitter-python: the kinds and fields of the Python and Bazel inventory.
    pub mod python = tree_sitter_python::LANGUAGE.into();
    kinds {
        Identifier = "identifier",
        Attribute = "attribute",
        String = "string",
        StringContent = "string_content",
        KeywordArgument = "keyword_argument",
        List = "list",
        Tuple = "tuple",
        Set = "set",
        Call = "call",
        ArgumentList = "argument_list",
        Assignment = "assignment",
        AugmentedAssignment = "augmented_assignment",
        Subscript = "subscript",
        Pair = "pair",
        Dictionary = "dictionary",
        ImportStatement = "import_statement",
        ImportFromStatement = "import_from_statement",
        DottedName = "dotted_name",
        ParenthesizedExpression = "parenthesized_expression",
        NotOperator = "not_operator",
        ComparisonOperator = "comparison_operator",
        None = "none",
        IfStatement = "if_statement",
        ElifClause = "elif_clause",
        BooleanOperator = "boolean_operator",
        ConditionalExpression = "conditional_expression",
        FunctionDefinition = "function_definition",
        Module = "module",
        TryStatement = "try_statement",
        ExceptClause = "except_clause",
        AliasedImport = "aliased_import",
        WithStatement = "with_statement",
        ClassDefinition = "class_definition",
        Block = "block",
        ElseClause = "else_clause",
        DecoratedDefinition = "decorated_definition",
        Decorator = "decorator",
        ReturnStatement = "return_statement",
        RaiseStatement = "raise_statement",
        ContinueStatement = "continue_statement",
        BreakStatement = "break_statement",
        ExpressionStatement = "expression_statement",
        AssertStatement = "assert_statement",
        PatternList = "pattern_list",
        Integer = "integer",
        BinaryOperator = "binary_operator",
        False_ = "false",
        Comment = "comment",
        Interpolation = "interpolation",
        ConcatenatedString = "concatenated_string",
        Parameters = "parameters",
        DefaultParameter = "default_parameter",
        TypedParameter = "typed_parameter",
        TypedDefaultParameter = "typed_default_parameter",
        Lambda = "lambda",
    }
    fields {
        Alias = "alias",
        Argument = "argument",
        Arguments = "arguments",
        Attribute = "attribute",
        Body = "body",
        Condition = "condition",
        Consequence = "consequence",
        Alternative = "alternative",
        Definition = "definition",
        Function = "function",
        Key = "key",
        Left = "left",
        ModuleName = "module_name",
        Name = "name",
        Object = "object",
        Operator = "operator",
        Parameters = "parameters",
        Right = "right",
        Subscript = "subscript",
        Value = "value",
    }
}

syntax_table! {
    /// tree-sitter-bash: the kinds and fields of the shell inventory.
    pub mod bash = tree_sitter_bash::LANGUAGE.into();
    kinds {
        Command = "command",
        VariableAssignment = "variable_assignment",
        FileRedirect = "file_redirect",
        HerestringRedirect = "herestring_redirect",
        HeredocRedirect = "heredoc_redirect",
        IfStatement = "if_statement",
        ElifClause = "elif_clause",
        ElseClause = "else_clause",
        CaseStatement = "case_statement",
        CaseItem = "case_item",
    }
    fields {
        Name = "name",
        Value = "value",
    }
}

syntax_table! {
    /// tree-sitter-make: the kinds and fields of the Makefile inventory.
    pub mod make = tree_sitter_make::LANGUAGE.into();
    kinds {
        VariableAssignment = "variable_assignment",
        ShellText = "shell_text",
        RecipeLine = "recipe_line",
        Rule = "rule",
        Targets = "targets",
        Recipe = "recipe",
        Conditional = "conditional",
        ElseDirective = "else_directive",
        ElsifDirective = "elsif_directive",
        IfdefDirective = "ifdef_directive",
        IfndefDirective = "ifndef_directive",
        IfeqDirective = "ifeq_directive",
        IfneqDirective = "ifneq_directive",
    }
    fields {
        Name = "name",
        Value = "value",
        Condition = "condition",
        Variable = "variable",
        Arg0 = "arg0",
        Arg1 = "arg1",
    }
}

syntax_table! {
    /// tree-sitter-cmake: the kinds of the CMake inventory.
    pub mod cmake = tree_sitter_cmake::LANGUAGE.into();
    kinds {
        NormalCommand = "normal_command",
        Identifier = "identifier",
        ArgumentList = "argument_list",
        IfCondition = "if_condition",
        IfCommand = "if_command",
        ElseifCommand = "elseif_command",
        ElseCommand = "else_command",
        EndifCommand = "endif_command",
        Body = "body",
    }
    fields {}
}

syntax_table! {
    /// tree-sitter-yaml: the kinds and fields of the YAML inventory.
    pub mod yaml = tree_sitter_yaml::LANGUAGE.into();
    kinds {
        FlowNode = "flow_node",
        BlockNode = "block_node",
        PlainScalar = "plain_scalar",
        DoubleQuoteScalar = "double_quote_scalar",
        SingleQuoteScalar = "single_quote_scalar",
        BlockScalar = "block_scalar",
        BlockMappingPair = "block_mapping_pair",
        FlowPair = "flow_pair",
        BlockSequence = "block_sequence",
        FlowSequence = "flow_sequence",
        BlockSequenceItem = "block_sequence_item",
    }
    fields {
        Key = "key",
        Value = "value",
    }
}
