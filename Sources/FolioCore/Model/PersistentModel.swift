import Foundation
import Observation

/// A class whose instances are objects of a document — what `@Model` makes a
/// class, as in SwiftData.
///
/// A model is a view over a context's object graph: once inserted (or
/// fetched), reading a property reads the document and setting one is an
/// undoable edit, the same edit the dynamic API makes. Before insertion its
/// values live in the instance. Models compare by identity.
public protocol PersistentModel: AnyObject, Observable, Hashable, Identifiable {
    /// Where the model's values live: its context and identifier, once inserted.
    var persistentBackingData: BackingData { get set }
    /// The persisted properties, from which the schema is derived.
    static var schemaMetadata: [Schema.PropertyMetadata] { get }
    /// The persisted properties the class declares itself: `schemaMetadata`
    /// for a class without a `@Model` superclass; for a `@Model` subclass
    /// (model inheritance), the properties it adds to its superclass's.
    /// `@Model` declares it as a class property, which a subclass overrides.
    static var _$ownSchemaMetadata: [Schema.PropertyMetadata] { get }
    /// Creates a model for an object a context already holds; contexts call it when fetching.
    init(backingData: BackingData)
    /// The key paths of `#Unique`'s constraints; none unless the class declares `#Unique`.
    static var _$uniquenessConstraints: [[AnyKeyPath]] { get }
    /// The key paths of `#Index`'s indexes; none unless the class declares `#Index`.
    static var _$indexes: [[AnyKeyPath]] { get }
    /// Whether the class's `deinit` tells its backing data the instance is
    /// going (``BackingData/_modelWillGo(_:_:)``): `@Model` writes such a
    /// `deinit` unless the class declares its own, and answers whether
    /// `init(backingData:)` is nonisolated (a class isolated to a global actor is
    /// Sendable, so its `deinit` may run on any thread, where it must leave its
    /// context alone). Contexts hold the instances of such classes unretained,
    /// the others weakly.
    static var _$unregistersOnDeinit: Bool { get }
    /// Whether the class keeps a ``_SharedBackingRow`` (`@Model` declares
    /// one), so that the models its contexts make can share their backing data.
    static var _$sharesBackingData: Bool { get }
    /// Whether making a model for a fetch may run on any thread: `@Model` says
    /// so for a class whose `init(backingData:)` is nonisolated and whose
    /// stored properties start as literals, so that a large fetch makes its
    /// models on every core.
    static var _$makesModelsAnywhere: Bool { get }
    /// The object this model stands for while it shares its context's backing
    /// data; not shared otherwise. `@Model` declares it; contexts set it.
    var _$sharedRow: _SharedBackingRow { get set }
    /// The backing data the model holds now, its context's shared one
    /// included (``persistentBackingData`` gives a model sharing one its own).
    var _$heldBackingData: BackingData { get }
}

extension PersistentModel {
    /// All of `schemaMetadata`: what a class conforming by hand declares itself.
    public static var _$ownSchemaMetadata: [Schema.PropertyMetadata] { schemaMetadata }

    /// No uniqueness constraints: what a class without `#Unique` has.
    public static var _$uniquenessConstraints: [[AnyKeyPath]] { [] }

    /// No indexes: what a class without `#Index` has.
    public static var _$indexes: [[AnyKeyPath]] { [] }

    /// No `deinit` hook: what a class conforming by hand, or declaring its own `deinit`, has.
    public static var _$unregistersOnDeinit: Bool { false }

    /// No shared backing data: what a class conforming by hand has.
    public static var _$sharesBackingData: Bool { false }

    /// Models made on the fetching thread only: what a class conforming by hand,
    /// or with initial values other than literals, has.
    public static var _$makesModelsAnywhere: Bool { false }

    /// Never shared: what a class conforming by hand has.
    public var _$sharedRow: _SharedBackingRow {
        get { _SharedBackingRow() }
        set {}
    }

    /// The model's own backing data: what a class conforming by hand holds.
    public var _$heldBackingData: BackingData { persistentBackingData }

    /// The entity name: the class's name.
    static var entityName: String { String(describing: Self.self) }

    /// The `@Model` class this class inherits from, if any (model inheritance).
    static var persistentSuperclass: (any PersistentModel.Type)? {
        _getSuperclass(Self.self) as? any PersistentModel.Type
    }

    /// The object's identifier. Before insertion it is a temporary one, which
    /// names no stored object; inserting assigns the permanent one.
    public var persistentModelID: PersistentIdentifier {
        let shared = _$sharedRow
        // The entity's name as its context's schema spells it, as for a model with its own backing data.
        if shared.isShared {
            let held = _$heldBackingData
            return PersistentIdentifier(
                entityName: held.identifier?.entityName ?? Self.entityName, id: shared.id,
                storeIdentifier: held.context?.core.storeIdentifier)
        }
        // The instance's own class: a model of a subclass seen as its superclass names its own entity.
        return persistentBackingData.identifier(entityName: Swift.type(of: self).entityName)
    }

    /// The identifier, as `Identifiable` asks.
    public var id: PersistentIdentifier { persistentModelID }

    /// The context the model belongs to; `nil` before insertion, and after a
    /// save (or another context's saved delete) has removed the object.
    ///
    /// A deleted object keeps its context until the delete is saved, as the
    /// SwiftData life cycle goes, and its values stay readable afterwards.
    public var modelContext: ModelContext? {
        guard let (context, ref) = location, context.graph.isLive(ref) || context.tracking.deleted.contains(ref) else { return nil }
        return context
    }

    /// Whether the model was deleted and the delete is not yet saved.
    public var isDeleted: Bool {
        guard let (context, ref) = location else { return false }
        return context.tracking.deleted.contains(ref)
    }

    /// Whether the model has unsaved changes: inserted, edited or deleted since the last save.
    public var hasChanges: Bool {
        guard let (context, ref) = location else { return false }
        context.settleTracking()
        return context.tracking.inserted.contains(ref) || context.tracking.updated[ref] != nil || context.tracking.deleted.contains(ref)
    }

    /// The context and the object's row, as ``BackingData/location`` gives
    /// them, without giving a model that shares its context's backing data
    /// backing data of its own.
    var location: (ModelContext, ObjectRef)? {
        let shared = _$sharedRow
        if shared.isShared, let location = _$heldBackingData.sharedLocation(shared) { return location }
        return persistentBackingData.location
    }

    /// The model's backing data if it has its own; `nil` while it shares its
    /// context's (it was never edited nor read under observation tracking).
    var ownBackingData: BackingData? {
        _$sharedRow.isShared ? nil : persistentBackingData
    }

    /// Models are equal when they are the same instance.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    /// Hashes the instance's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
