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
        }

        /// The attribute's name; a Swift identifier.
        public var name: String
        /// The type of the attribute's values.
        public var type: ValueType
        /// Whether the attribute may hold no value (`nil`).
        public var isOptional: Bool
        /// The value a new object starts with; `nil` means the type's zero value
        /// for non-optional attributes and no value for optional ones.
        public var defaultValue: Value?
        /// Storage options.
        public var options: Set<Option>
        /// The attribute's name in an earlier version of the schema, for renames.
        public var originalName: String?

        /// Creates an attribute.
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
            self.defaultValue = defaultValue
            self.options = options
            self.originalName = originalName
        }

        /// Whether no two objects may share this attribute's value.
        public var isUnique: Bool { options.contains(.unique) }
        /// Whether this attribute is kept in memory only.
        public var isTransient: Bool { options.contains(.transient) }
        /// Whether this attribute's value is stored in a file beside the XML.
        public var isExternal: Bool { options.contains(.externalStorage) }

        /// The value a newly inserted object holds for this attribute.
        public var initialValue: Value {
            if let defaultValue { return defaultValue }
            return isOptional ? .null : Value.zero(of: type)
        }
    }
}
