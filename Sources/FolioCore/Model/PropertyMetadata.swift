@_spi(ObservableRerootKeyPath) import Swift
import Foundation

extension Schema {
    /// One persisted property of a model class, as `@Model` describes it in
    /// `schemaMetadata`: its name, key path, and how it is stored.
    ///
    /// The expansion calls one initializer per property; which overload the
    /// compiler picks (value, `Codable` composite, to-one, to-many) is what
    /// decides whether the property is an attribute or a relationship.
    public struct PropertyMetadata {
        /// The property's name, which is also its name in the document.
        public let name: String
        /// The property's key path on its model class.
        public private(set) var keyPath: AnyKeyPath
        /// The key paths of the same property from the classes a subclass
        /// inherits it from, nearest last (see ``rerooted(to:)``): what their
        /// `#Unique` and `#Index` name.
        private(set) var inheritedKeyPaths: [AnyKeyPath] = []

        enum Kind {
            case attribute(Schema.Attribute, read: (any PersistentModel) throws -> Value)
            /// `read` gives the related models, `nil` for an optional to-many set to `nil`.
            case relationship(
                Schema.Relationship, destination: any PersistentModel.Type,
                read: (any PersistentModel) -> [any PersistentModel]?)
        }

        let kind: Kind
        /// Whether a relationship was declared `@Relationship(.unique)`: a
        /// uniqueness constraint of that one member.
        var isUnique = false
        /// For a `Codable` attribute, whose schema type (`codable`) says less than
        /// its Swift type: whether a stored value can be read as that type.
        let accepts: ((Value) -> Bool)?
        /// Tells the model's observers the property changed (an undo, a redo, a dynamic edit).
        let notify: (any PersistentModel) -> Void
        /// An attribute's value as the backing data keeps it before insertion
        /// (the property's type, as `Any`), in its stored form; `nil` when it is
        /// not of the property's type. What a typed insert stores, without the
        /// key path and getter `read` goes through.
        private(set) var storedValue: ((Any) throws -> Value?)?
        /// A relationship's models as the backing data keeps them before
        /// insertion; `.none` when the value is not of the property's type.
        private(set) var relatedModels: ((Any) -> [any PersistentModel]??)?

        /// A model as its class: an exact match needs no dynamic cast (the
        /// typed insert reads every property through here).
        /// The same property as a subclass inherits it: its key path rooted at
        /// the subclass (`\\BusinessTrip.name` for `\\Trip.name`), as a predicate
        /// or sort descriptor on the subclass names it.
        func rerooted(to type: any PersistentModel.Type) -> PropertyMetadata {
            func reroot<Root: PersistentModel>(_ root: Root.Type) -> AnyKeyPath { _rerootKeyPath(keyPath, to: Root.self) }
            var copy = self
            copy.inheritedKeyPaths.append(keyPath)
            copy.keyPath = reroot(type)
            return copy
        }

        @inline(__always)
        static func cast<Model: PersistentModel>(_ model: any PersistentModel, to type: Model.Type) -> Model? {
            if ObjectIdentifier(Swift.type(of: model)) == ObjectIdentifier(Model.self) { return unsafeDowncast(model as AnyObject, to: Model.self) }
            return model as? Model
        }

        private static func notifier<Model: PersistentModel, V>(_ keyPath: KeyPath<Model, V>) -> (any PersistentModel) -> Void {
            { model in
                // A model never read under observation has no registrar, and no observer to tell.
                guard let model = cast(model, to: Model.self),
                    let registrar = model.ownBackingData?.observationRegistrar
                else { return }
                registrar.withMutation(of: model, keyPath: keyPath) {}
            }
        }

        /// The `@Attribute` arguments of a property.
        public struct AttributeOptions {
            let options: Set<Schema.Attribute.Option>
            let originalName: String?

            /// Records `@Attribute(options…, originalName:, hashModifier:)`.
            public init(_ options: Schema.Attribute.Option..., originalName: String? = nil, hashModifier: String? = nil) {
                self.options = Set(options)
                self.originalName = originalName
            }
        }

        /// A value read as an optional property's type, without the optional:
        /// `defaultValue as? UUID` then reads a `UUID?` property's default.
        static func unwrapped(_ value: Any) -> Any? {
            guard let optional = value as? any OptionalType else { return value }
            return optional.wrappedValue.flatMap(unwrapped)
        }

        /// A default of "no value" is no default: optionals and any-values start empty anyway.
        static func stored(_ value: Value?) -> Value? {
            if case .null? = value { return nil }
            return value
        }

        /// An attribute of a type Folio stores directly.
        public init<Model: PersistentModel, V: PersistableValue>(
            _ name: String, _ keyPath: KeyPath<Model, V>, defaultValue: V? = nil, attribute: AttributeOptions = .init()
        ) {
            self.name = name
            self.keyPath = keyPath
            notify = Self.notifier(keyPath)
            accepts = nil
            var declaration = Schema.Attribute(
                name, V.valueType, isOptional: V.self is any OptionalType.Type,
                defaultValue: Self.stored(defaultValue?.persistentValue), options: attribute.options,
                originalName: attribute.originalName)
            declaration.swiftValueReader = SwiftValueReader { V(persistentValue: $0).flatMap(Self.unwrapped) }
            kind = .attribute(
                declaration,
                read: { model in
                    guard let model = Self.cast(model, to: Model.self) else { return .null }
                    return model[keyPath: keyPath].persistentValue
                })
            storedValue = { ($0 as? V)?.persistentValue }
        }

        /// An attribute of any other `Codable` type, stored as a composite value.
        public init<Model: PersistentModel, V: Codable>(
            _ name: String, _ keyPath: KeyPath<Model, V>, defaultValue: V? = nil, attribute: AttributeOptions = .init()
        ) {
            self.init(name, codable: keyPath, defaultValue: defaultValue, attribute: attribute)
        }

        /// An attribute stored through its `Codable` form whatever its type:
        /// `@Attribute(.codable)`, which `@Model` describes with this initializer.
        public init<Model: PersistentModel, V: Codable>(
            _ name: String, codable keyPath: KeyPath<Model, V>, defaultValue: V? = nil, attribute: AttributeOptions = .init()
        ) {
            self.name = name
            self.keyPath = keyPath
            notify = Self.notifier(keyPath)
            accepts = { CodableValue.decodeLeniently(V.self, from: $0) != nil }
            var storedDefault: Value?
            if let defaultValue { storedDefault = try? CodableValue.encode(defaultValue) }
            var declaration = Schema.Attribute(
                name, .codable, isOptional: V.self is any OptionalType.Type,
                defaultValue: Self.stored(storedDefault), options: attribute.options,
                originalName: attribute.originalName)
            declaration.swiftValueReader = SwiftValueReader { CodableValue.decodeLeniently(V.self, from: $0).flatMap(Self.unwrapped) }
            kind = .attribute(
                declaration,
                read: { model in
                    guard let model = Self.cast(model, to: Model.self) else { return .null }
                    return try CodableValue.encode(model[keyPath: keyPath])
                })
            storedValue = { value in try (value as? V).map { try CodableValue.encode($0) } }
        }

        /// An optional to-one relationship: deleting the destination nullifies it.
        public init<Model: PersistentModel, Destination: PersistentModel>(
            _ name: String, _ keyPath: KeyPath<Model, Destination?>, defaultValue: Destination?? = nil, options: [Schema.Relationship.Option] = [],
            deleteRule: Schema.Relationship.DeleteRule = .nullify, minimumModelCount: Int? = 0, maximumModelCount: Int? = 0,
            originalName: String? = nil, inverse: PartialKeyPath<Destination>? = nil, inverseName: String? = nil
        ) {
            self.name = name
            isUnique = options.contains(.unique)
            self.keyPath = keyPath
            notify = Self.notifier(keyPath)
            accepts = nil
            kind = .relationship(
                Schema.Relationship(
                    name, to: Destination.entityName, toMany: false, inverse: inverseName, deleteRule: deleteRule,
                    minimumModelCount: minimumModelCount ?? 0, maximumModelCount: maximumModelCount ?? 0,
                    originalName: originalName),
                destination: Destination.self,
                read: { model in Self.cast(model, to: Model.self).flatMap { $0[keyPath: keyPath] }.map { [$0] } ?? [] })
            relatedModels = { value in
                // Kept as `Destination?`: a value that is no `Destination` is its `nil`.
                guard let held = value as? Destination else { return .some([]) }
                return .some([held])
            }
        }

        /// A required to-one relationship (a non-optional type, `var payer: Person`):
        /// its minimum count is one, so a save that would leave it empty is refused.
        public init<Model: PersistentModel, Destination: PersistentModel>(
            _ name: String, _ keyPath: KeyPath<Model, Destination>, defaultValue: Destination? = nil, options: [Schema.Relationship.Option] = [],
            deleteRule: Schema.Relationship.DeleteRule = .nullify, minimumModelCount: Int? = 0, maximumModelCount: Int? = 0,
            originalName: String? = nil, inverse: PartialKeyPath<Destination>? = nil, inverseName: String? = nil
        ) {
            self.name = name
            isUnique = options.contains(.unique)
            self.keyPath = keyPath
            notify = Self.notifier(keyPath)
            accepts = nil
            kind = .relationship(
                Schema.Relationship(
                    name, to: Destination.entityName, toMany: false, inverse: inverseName, deleteRule: deleteRule,
                    minimumModelCount: 1, maximumModelCount: maximumModelCount ?? 0,
                    originalName: originalName),
                destination: Destination.self,
                read: { model in
                    // The stand-in an empty one reads is no model to link.
                    guard let related = Self.cast(model, to: Model.self)?[keyPath: keyPath],
                        !related.persistentBackingData.isStandIn
                    else { return [] }
                    return [related]
                })
            relatedModels = { value in
                guard let held = value as? Destination else { return .some([]) }
                return .some([held])
            }
        }

        /// A to-many relationship, ordered as the array is.
        public init<Model: PersistentModel, Destination: PersistentModel>(
            _ name: String, _ keyPath: KeyPath<Model, [Destination]>, defaultValue: [Destination]? = nil, options: [Schema.Relationship.Option] = [],
            deleteRule: Schema.Relationship.DeleteRule = .nullify, minimumModelCount: Int? = 0, maximumModelCount: Int? = 0,
            originalName: String? = nil, inverse: PartialKeyPath<Destination>? = nil, inverseName: String? = nil
        ) {
            self.name = name
            isUnique = options.contains(.unique)
            self.keyPath = keyPath
            notify = Self.notifier(keyPath)
            accepts = nil
            kind = .relationship(
                Schema.Relationship(
                    name, to: Destination.entityName, toMany: true, inverse: inverseName, deleteRule: deleteRule,
                    minimumModelCount: minimumModelCount ?? 0, maximumModelCount: maximumModelCount ?? 0,
                    originalName: originalName),
                destination: Destination.self,
                read: { model in Self.cast(model, to: Model.self).map { $0[keyPath: keyPath] } ?? [] })
            relatedModels = { value in
                guard let held = value as? [Destination] else { return .none }
                return .some(held.map { $0 as any PersistentModel })
            }
        }

        /// An optional to-many relationship, which tells `nil` (no collection:
        /// never assigned, or set to `nil`) from an empty array, saved or not.
        public init<Model: PersistentModel, Destination: PersistentModel>(
            _ name: String, _ keyPath: KeyPath<Model, [Destination]?>, defaultValue: [Destination]?? = nil, options: [Schema.Relationship.Option] = [],
            deleteRule: Schema.Relationship.DeleteRule = .nullify, minimumModelCount: Int? = 0, maximumModelCount: Int? = 0,
            originalName: String? = nil, inverse: PartialKeyPath<Destination>? = nil, inverseName: String? = nil
        ) {
            self.name = name
            isUnique = options.contains(.unique)
            self.keyPath = keyPath
            notify = Self.notifier(keyPath)
            accepts = nil
            kind = .relationship(
                Schema.Relationship(
                    name, to: Destination.entityName, toMany: true, isOptional: true, inverse: inverseName,
                    deleteRule: deleteRule, minimumModelCount: minimumModelCount ?? 0,
                    maximumModelCount: maximumModelCount ?? 0, originalName: originalName),
                destination: Destination.self,
                read: { model in Self.cast(model, to: Model.self).flatMap { $0[keyPath: keyPath] } })
            relatedModels = { value in
                guard let held = value as? [Destination]? else { return .none }
                return .some(held.map { $0.map { $0 as any PersistentModel } })
            }
        }
    }
}
