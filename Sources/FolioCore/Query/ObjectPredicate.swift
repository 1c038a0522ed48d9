/// A runtime predicate over objects, in the spirit of `NSPredicate` and Realm's
/// `filter("age < 2")`, for the dynamic API and the REPL.
///
/// ```swift
/// let old = try ObjectPredicate("age >= 10 and (name beginswith[c] \"r\" or category.name == 'Mammal')")
/// try context.delete(entity: "Animal", where: old)
/// ```
///
/// Grammar (keywords are case-insensitive):
///
/// ```
/// predicate  := or
/// or         := and (("or" | "||") and)*
/// and        := not (("and" | "&&") not)*
/// not        := ("not" | "!") not | "(" predicate ")" | "true" | "false" | comparison
/// comparison := operand operator operand
/// operator   := "==" | "=" | "!=" | "<>" | "<" | "<=" | ">" | ">="
///             | ("contains" | "beginswith" | "endswith" | "in") ["[c]"]
/// operand    := keypath | literal | "{" literal ("," literal)* "}" | "[" literal ("," literal)* "]"
/// keypath    := name ("." name)* ["." "@count"]
/// literal    := number | date | "string" | 'string' | true | false | nil | null
/// ```
///
/// Literals are written as ``LiteralSyntax`` writes them everywhere (the
/// REPL's `insert` and `set` included): quoted strings with the same escapes,
/// and bare numbers and ISO 8601 dates (`born < 2020-01-01`,
/// `start >= 2025-07-01T09:30:00Z`). A literal is read as the type of the
/// attribute it is compared with: a bare literal as a date for a date, as its
/// text for a string, as a number otherwise (for an any-value, the first of
/// an integer, a double and a date it is); a quoted one as a date, UUID, URL
/// or decimal for those types (`born < "2020-01-01"`).
///
/// A key path names an attribute, or follows to-one relationships to one
/// (`category.name`); `animals.@count` counts a to-many. `[c]` compares strings case-insensitively. Numbers
/// of any type compare by value; `nil` equals only an absent value, and an
/// ordering comparison (`<`, `>=`, …) with an absent value is false.
///
/// A chain of `and`/`or` terms may be as long as you like (it is parsed and
/// evaluated with loops, 100,000 terms in well under a second); parentheses
/// and `not` may nest at most ``maximumNesting`` levels deep, and deeper nesting
/// is refused with a ``ObjectPredicateError`` naming the column where the limit is hit.
public struct ObjectPredicate: Hashable, Sendable, CustomStringConvertible {
    indirect enum Node: Hashable, Sendable {
        case constant(Bool)
        case not(Node)
        /// All of the operands, in order (chains of `and` parse into one node,
        /// so a predicate of any length nests only as deep as its parentheses).
        case and([Node])
        /// Any of the operands, in order.
        case or([Node])
        case comparison(Operand, Operator, Operand, caseInsensitive: Bool, column: Int)
    }

    enum Operand: Hashable, Sendable {
        case keyPath([String], count: Bool, column: Int)
        case literal(Literal, column: Int)
        case list([Literal], column: Int)
    }

    enum Literal: Hashable, Sendable {
        case number(String)
        case string(String)
        case bool(Bool)
        case null
    }

    enum Operator: String, Hashable, Sendable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case contains, beginsWith = "beginswith", endsWith = "endswith", `in`
    }

    /// How deeply parentheses and `not` may nest in a predicate (100).
    public static let maximumNesting = 100

    let root: Node
    /// The text the predicate was parsed from.
    public let text: String

    /// Parses a predicate.
    ///
    /// - Throws: ``ObjectPredicateError`` naming the offending token's column.
    public init(_ text: String) throws(ObjectPredicateError) {
        var parser = PredicateParser(text)
        root = try parser.parse()
        self.text = text
    }

    /// A predicate every object matches.
    public static let all = ObjectPredicate(root: .constant(true), text: "true")

    private init(root: Node, text: String) {
        self.root = root
        self.text = text
    }

    public var description: String { text }
}
