/// The shape of a document: its entities, their attributes and relationships.
///
/// A schema is a value. Every document package carries its schema, so any
/// document opens with no Swift types compiled in. Build one by hand, read one
/// from a package, or derive one from `@Model` classes (`Schema([Trip.self])`).
///
/// ```swift
/// let schema = try Schema([
///     .init("AnimalCategory",
///           attributes: [.init("name", .string, options: [.unique])],
///           relationships: [.init("animals", to: "Animal", toMany: true,
///                                 inverse: "category", deleteRule: .cascade)]),
///     .init("Animal",
///           attributes: [.init("name", .string)],
///           relationships: [.init("category", to: "AnimalCategory", inverse: "animals")]),
/// ])
/// ```
public struct Schema: Hashable, Sendable {
    /// The entities, in declaration order (which is also their order on disk).
    public private(set) var entities: [Entity]
    /// What a layer above keeps with the schema, if anything (the typed layer:
    /// the classes the schema was made from); not part of equality.
    var annotation: (any SchemaAnnotation)?
    /// The version the schema was declared with (``VersionedSchema`` or
    /// `Schema(_:version:)`), or read from a package that records one; `nil`
    /// otherwise. Not part of equality: two schemas are equal when their
    /// entities are, whatever they are called.
    var declaredVersion: Version?

    /// The schema's version: the one it was declared with, or read from its
    /// package; 1.0.0 (SwiftData's default) when none was.
    public var version: Version { declaredVersion ?? Version(1, 0, 0) }

    /// Creates a schema and validates it.
    ///
    /// - Parameters:
    ///   - entities: the entities, in the order they are saved.
    ///   - version: the version a package saved with this schema records
    ///     (docs/FORMAT.md); `nil` records none, and ``version`` reads 1.0.0.
    /// - Throws: ``SchemaError`` when names clash, a relationship names an unknown
    ///   entity, or an inverse does not point back.
    public init(_ entities: [Entity], version: Version? = nil) throws(SchemaError) {
        self.entities = entities
        declaredVersion = version
        try validate()
    }

    /// A schema not yet validated; ``validate()`` reports what is wrong with it.
    init(unchecked entities: [Entity], annotation: (any SchemaAnnotation)?) {
        self.entities = entities
        self.annotation = annotation
    }

    /// The entity with the given name, if any. O(entities).
    public func entity(named name: String) -> Entity? {
        entities.first { $0.name == name }
    }

    /// The index of the entity with the given name, if any.
    func entityIndex(named name: String) -> Int? {
        entities.firstIndex { $0.name == name }
    }

    /// Whether two schemas have the same entities; their versions and classes do not count.
    public static func == (lhs: Schema, rhs: Schema) -> Bool { lhs.entities == rhs.entities }

    /// Hashes the entities, the part that counts for equality.
    public func hash(into hasher: inout Hasher) { hasher.combine(entities) }
}
