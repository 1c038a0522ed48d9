/// Why a runtime predicate could not be parsed or applied to an entity.
public struct ObjectPredicateError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public var message: String
    /// The 1-based column in the predicate text where it is, 0 if not known.
    public var column: Int

    /// Creates an error.
    public init(_ message: String, column: Int) {
        self.message = message
        self.column = column
    }

    public var description: String { column > 0 ? "column \(column): \(message)" : message }
}
