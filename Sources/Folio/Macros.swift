// The macros of the typed layer. Their expansions are in the FolioMacros
// plug-in; what they expand to calls BackingData, _PersistedPropertyMarker and
// Schema.PropertyMetadata.

/// Makes a class a persistent model: a `PersistentModel` (and so `Observable`)
/// whose stored properties are views over a context's document.
///
/// Every stored `var` is persisted unless marked `@Transient`. A property whose
/// type is a `@Model` class, an optional of one or an array of them is a
/// relationship (delete rule `.nullify` unless `@Relationship` says otherwise);
/// anything else is an attribute of a value type, or a `Codable` value stored
/// as a composite. A class that declares no initializer gets a memberwise one.
///
/// A `@Model` class may subclass another (SwiftData's model inheritance): its
/// entity is a subentity of its superclass's, with the superclass's
/// properties and its own; a fetch of the superclass returns its models too.
/// A subclass declares its initializer, which sets its own properties and
/// calls `super.init`. See <doc:ModelInheritance>.
///
/// ```swift
/// @Model class Trip { var name: String; init(name: String) { self.name = name } }
/// @Model final class BusinessTrip: Trip {
///     var perdiem: Double = 0
///     init(name: String, perdiem: Double) {
///         self.perdiem = perdiem
///         super.init(name: name)
///     }
/// }
/// ```
///
/// ```swift
/// @Model
/// final class Trip {
///     @Attribute(.unique) var name: String
///     var startDate: Date
///     @Relationship(deleteRule: .cascade, inverse: \Accommodation.trip)
///     var accommodation: Accommodation?
/// }
/// ```
@attached(
    member, conformances: PersistentModel,
    names: named(_$backingData), named(persistentBackingData), named(schemaMetadata), named(init),
    named(_$unregistersOnDeinit), named(deinit), named(_$sharedRow), named(_$sharesBackingData),
    named(_$heldBackingData), named(_$makesModelsAnywhere), named(_$ownSchemaMetadata))
@attached(memberAttribute)
@attached(extension, conformances: PersistentModel, Observable)
public macro Model() = #externalMacro(module: "FolioMacros", type: "ModelMacro")

/// Routes a persisted property through the model's backing data; `@Model` adds
/// it, with the property's position in `schemaMetadata` (`ordinal`), by which
/// reads and writes find the property's column without looking its name up.
@attached(accessor, names: named(init), named(get), named(set))
@attached(peer, names: prefixed(_))
public macro _PersistedProperty(_ ordinal: Int = -1) = #externalMacro(module: "FolioMacros", type: "PersistedPropertyMacro")

/// Customizes how an attribute is stored: `.unique` (an insert with an existing
/// value updates that object), `.externalStorage` (a blob beside the XML),
/// `.transient` and `.ephemeral` (in the schema, never saved), SwiftData's
/// `.spotlight`, `.allowsCloudEncryption` and `.preserveValueOnDeletion`
/// (recorded, no effect on Linux), and `originalName` for renames,
/// which lightweight migration follows. `hashModifier` is accepted for source
/// compatibility; Folio compares schemas structurally.
@attached(peer)
public macro Attribute(
    _ options: Schema.Attribute.Option...,
    originalName: String? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "FolioMacros", type: "SchemaMarkerMacro")

/// Customizes a relationship: its delete rule (`.nullify` by default), its
/// inverse (kept in sync on both sides), minimum and maximum counts (checked at
/// save), and `originalName` for renames. `.unique` makes a to-one relationship
/// unique: no two objects may hold the same related object, and inserting one
/// that does updates the object holding it (the macro refuses it on a to-many).
@attached(peer)
public macro Relationship(
    _ options: Schema.Relationship.Option...,
    deleteRule: Schema.Relationship.DeleteRule = .nullify,
    minimumModelCount: Int? = 0,
    maximumModelCount: Int? = 0,
    originalName: String? = nil,
    inverse: AnyKeyPath? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "FolioMacros", type: "SchemaMarkerMacro")

/// The delete rule as the first argument, as in `@Relationship(.cascade)`.
@attached(peer)
public macro Relationship(
    _ deleteRule: Schema.Relationship.DeleteRule,
    minimumModelCount: Int? = 0,
    maximumModelCount: Int? = 0,
    originalName: String? = nil,
    inverse: AnyKeyPath? = nil,
    hashModifier: String? = nil
) = #externalMacro(module: "FolioMacros", type: "SchemaMarkerMacro")

/// Declares a model's uniqueness constraints, SwiftData's `#Unique`: each array
/// of key paths names attributes that no two objects may hold the same values
/// in, all together.
///
///     @Model final class Visit {
///         #Unique<Visit>([\.city, \.day], [\.code])
///         var city: String
///         var day: Date
///         var code: String
///     }
///
/// A constraint of one key path is that attribute's `@Attribute(.unique)`.
/// A key path may name a to-one relationship, whose value is the identity of
/// the model it holds: `#Unique<Flow>([\.snapshot, \.label])` allows one flow
/// per label in each snapshot. Inserting a model whose values match a stored
/// one in every member of a constraint updates the stored object instead (an
/// upsert, made at the insert rather than at the save, so a fetch in between
/// finds one object; a new related model is inserted first and matches too,
/// and a to-one left `nil` matches the model whose relationship inserts this
/// one, so new flows listed in a new snapshot match each other); a save
/// that would leave two objects matching — after an edit, or a relinking —
/// fails with ``ModelError/validation(_:)``. A model with `nil` in a member of
/// a constraint (no value, no related model) matches no other. Key paths must
/// name stored attributes of a scalar type or to-one relationships: a to-many
/// relationship, a collection or a `Codable` composite makes `ModelContainer`
/// throw ``SchemaError/invalidUniquenessConstraint(entity:attributes:reason:)``.
@freestanding(declaration, names: named(_$uniquenessConstraints))
public macro Unique<T: PersistentModel>(_ constraints: [PartialKeyPath<T>]...) =
    #externalMacro(module: "FolioMacros", type: "UniqueMacro")

/// Declares a model's indexes, SwiftData's `#Index`: each array of key paths
/// names attributes a fetch can find objects by without reading every object.
///
///     @Model final class Animal {
///         #Index<Animal>([\.name], [\.age, \.weight])
///         var name: String
///         var age: Int
///         var weight: Double
///     }
///
/// A fetch whose predicate is (a conjunction containing) a test of an indexed
/// attribute against a constant — `==`, or a range with `<`, `<=`, `>`, `>=` —
/// reads only the objects the index yields: `$0.name == name`, or
/// `$0.age == 3 && $0.weight > 10` by the compound index (equality on its
/// first attributes, then a range on the next). The result, order included,
/// is the scan's. The index is built on the first such fetch and kept current
/// by every edit, undo and redo after. Adding or removing an index needs no
/// migration. Key paths must name stored attributes of a scalar type: a
/// relationship, a collection, a `Codable` composite or an externally stored
/// attribute makes `ModelContainer` throw
/// ``SchemaError/invalidIndex(entity:attributes:reason:)``.
@freestanding(declaration, names: named(_$indexes))
public macro Index<T: PersistentModel>(_ indices: [PartialKeyPath<T>]...) =
    #externalMacro(module: "FolioMacros", type: "IndexMacro")

/// Keeps a stored property out of the document: never saved, not in the schema.
/// It needs an initial value, since fetched models are created without one.
@attached(peer)
public macro Transient() = #externalMacro(module: "FolioMacros", type: "SchemaMarkerMacro")

/// Gives an actor its own `ModelContext` on a container, for background work:
/// `init(modelContainer:)`, `modelContainer`, `modelExecutor`, and (from
/// ``ModelActor``) `modelContext`.
@attached(member, names: named(modelExecutor), named(modelContainer), named(init))
@attached(extension, conformances: ModelActor)
public macro ModelActor() = #externalMacro(module: "FolioMacros", type: "ModelActorMacro")
