extension Schema {
    /// A stored property of an entity: a name, a value type and its options.
    ///
    /// Mirrors SwiftData's `Schema.Attribute`. Attributes are values; build a
    /// schema from them and validate it with ``Schema/validate()``.
    public struct Attribute: Hashable, Sendable {
        /// Options that change how an attribute is stored, as in SwiftData.
        public enum Option: String, Hashable, Sendable, CaseIterable {
            /// No two objects of the entity may share the value; an insert with an
            /// existing value updates that object instead (upsert).
            case unique
            /// The value is kept in a file beside the XML, not inline, and read
            /// when first used: for large values of any type (`Data`, a long
            /// `String`, a collection). `nil` is stored as no file.
            case externalStorage
            /// The value lives in memory only and is never saved.
            case transient
            /// Index the value for Spotlight search (SwiftData). Linux has no
            /// Spotlight: recorded in the schema, with no other effect.
            case spotlight
            /// Encrypt the value in CloudKit (SwiftData). Folio stores locally:
            /// recorded in the schema, with no other effect.
            case allowsCloudEncryption
            /// Keep the value in the history's record of a deletion (SwiftData):
            /// the transaction's tombstone holds it.
            case preserveValueOnDeletion
            /// Track changes to the value without saving it (SwiftData): in
            /// Folio, as ``transient``, the value lives in memory only.
            case ephemeral
            /// Store the property through its `Codable` form (SwiftData, iOS 27):
            /// the value is encoded into a composite value (type `codable`) even
            /// when Folio could store the type directly, and decoded when read.
            /// For a type Folio cannot introspect: a class, or a type whose
            /// encoding is a single value or a list.
            case codable
        }

        /// The attribute's name; a Swift identifier.
        public var name: String
        /// The type of the attribute's values.
        public var type: ValueType
        /// Whether the attribute may hold no value (`nil`).
        public var isOptional: Bool
        /// The value a new object starts with, in Folio's stored form; `nil`
        /// means the type's zero value for non-optional attributes and no value
        /// for optional ones. ``defaultValue`` is the same value as Swift sees it.
        public var defaultStoredValue: Value?
        /// Storage options.
        public var options: Set<Option>
        /// The attribute's name in an earlier version of the schema, for renames.
        public var originalName: String?
        /// How the model class reads a stored value as the property's Swift
        /// type, when the attribute comes from one. Not part of equality, so
        /// never optional: an attribute read from a package must equal the
        /// class's.
        var swiftValueReader = SwiftValueReader()

        /// Creates an attribute.
        ///
        /// - Parameters:
        ///   - name: the attribute's name, unique among its entity's properties.
        ///   - type: the type of its values.
        ///   - isOptional: whether it may hold `nil` (and need not be given).
        ///   - defaultValue: the default in Folio's stored form, as
        ///     ``defaultStoredValue`` holds it (``defaultValue`` reads it as a
        ///     Swift value).
        ///   - options: SwiftData's attribute options (`.unique`, `.externalStorage`…).
        ///   - originalName: its name in the previous schema version, when renamed.
        public init(
            _ name: String,
            _ type: ValueType,
            isOptional: Bool = false,
            defaultValue: Value? = nil,
            options: Set<Option> = [],
            originalName: String? = nil
        ) {
            self.name = name
            self.type = type
            self.isOptional = isOptional
            self.defaultStoredValue = defaultValue
            self.options = options
            self.originalName = originalName
        }

        /// The default as a Swift value, as SwiftData's `defaultValue` reads:
        /// `attribute.defaultValue as? UUID`. `nil` when there is no default.
        ///
        /// For an attribute of a model class the value has the property's
        /// declared type (a `Codable` enum, a `[String]`, an `Int16`). For a
        /// schema read from a document or written by hand it has the type's
        /// natural Swift type: `String`, `Bool`, `Int`, `Int8`…`UInt64` by
        /// width, `Double`, `Float`, `Date`, `Data`, `UUID`, `URL`, `Decimal`;
        /// collections as `[Any]`, `Set<AnyHashable>` and `[String: Any]` of
        /// those (`as? [String]` reads them); any-values and `codable`
        /// composites as Folio's ``Value`` — a composite's Swift type is known
        /// only to the class. O(the value's size).
        public var defaultValue: Any? {
            guard let stored = defaultStoredValue, stored != .null else { return nil }
            if let value = swiftValueReader.read?(stored) { return value }
            return stored.swiftValue(as: type)
        }

        /// Whether no two objects may share this attribute's value.
        public var isUnique: Bool { options.contains(.unique) }
        /// Whether this attribute is kept in memory only.
        public var isTransient: Bool { options.contains(.transient) || options.contains(.ephemeral) }
        /// Whether this attribute's value is stored in a file beside the XML.
        public var isExternal: Bool { options.contains(.externalStorage) }
        /// Whether the property is stored through its `Codable` form
        /// (``Option/codable``), SwiftData's `isCodable`.
        public var isCodable: Bool { options.contains(.codable) }

        /// Whether a new object should be given a value for this attribute:
        /// it is not optional, has no default, is not transient, and is not
        /// an any-value (whose none is its own `nil`).
        ///
        /// The typed layer always gives one (a model's initializer sets every
        /// property). The dynamic ``ModelContext/insert(_:_:related:)`` starts
        /// an attribute it is not given at ``initialValue`` — for a required
        /// one, its type's zero (`""`, `0`) — so a program that builds objects
        /// from what people type (the REPL's `insert`) checks this first.
        public var isRequired: Bool {
            !isOptional && defaultStoredValue == nil && !isTransient && type != .any
        }

        /// The value a newly inserted object holds for this attribute.
        public var initialValue: Value {
            if let defaultStoredValue { return defaultStoredValue }
            return isOptional ? .null : Value.zero(of: type)
        }
    }
}

/// Reads a stored value as the Swift type of the property an attribute was
/// made from (`nil` when it cannot): how ``Schema/Attribute/defaultValue``
/// gives `Mood.busy` or an `Int16` where the schema alone knows a composite or
/// an `int16`. A closure the layer that knows the type (the typed layer) hands
/// the attribute, so the schema names nothing above it. Two readers are always
/// equal, as two schemas are equal whatever their classes.
///
/// Unchecked: the closure captures nothing but the property's type, and a
/// generic metatype is not `Sendable` to the compiler.
struct SwiftValueReader: Hashable, @unchecked Sendable {
    /// `nil` for an attribute that comes from no class.
    var read: ((Value) -> Any?)?

    init(_ read: ((Value) -> Any?)? = nil) { self.read = read }

    static func == (lhs: Self, rhs: Self) -> Bool { true }
    func hash(into hasher: inout Hasher) {}
}
