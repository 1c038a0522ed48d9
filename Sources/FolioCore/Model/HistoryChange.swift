import Foundation

/// One object's change within a history transaction — SwiftData's `HistoryChange`.
///
/// The payload is typed by the object's model class
/// (`DefaultHistoryInsert<Trip>`); objects of an entity that no class declares
/// (a container opened on a package without model types) have ``DynamicModel``.
public enum HistoryChange: Sendable {
    /// The object was inserted.
    case insert(any HistoryInsert)
    /// Some of the object's attributes or relationships were changed.
    case update(any HistoryUpdate)
    /// The object was deleted.
    case delete(any HistoryDelete)

    /// The identifier of the object changed.
    public var changedPersistentIdentifier: PersistentIdentifier {
        switch self {
        case .insert(let insert): insert.changedPersistentIdentifier
        case .update(let update): update.changedPersistentIdentifier
        case .delete(let delete): delete.changedPersistentIdentifier
        }
    }
}

/// An insert recorded in the history — SwiftData's `HistoryInsert`.
public protocol HistoryInsert<Model>: Sendable {
    /// The model class of the object inserted.
    associatedtype Model: PersistentModel
    /// The identifier of the object inserted.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The change's position among all changes of the history.
    var changeIdentifier: Int64 { get }
    /// The number of the transaction the change belongs to.
    var transactionIdentifier: Int64 { get }
}

/// An update recorded in the history — SwiftData's `HistoryUpdate`.
public protocol HistoryUpdate<Model>: Sendable {
    /// The model class of the object updated.
    associatedtype Model: PersistentModel
    /// The identifier of the object updated.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The change's position among all changes of the history.
    var changeIdentifier: Int64 { get }
    /// The number of the transaction the change belongs to.
    var transactionIdentifier: Int64 { get }
    /// The attributes and relationships the save changed, as key paths of the model class
    /// (empty for ``DynamicModel``: see ``updatedAttributeNames``).
    var updatedAttributes: [PartialKeyPath<Model>] { get }
    /// The names of the attributes and relationships the save changed, in declaration order.
    var updatedAttributeNames: [String] { get }
}

/// A delete recorded in the history — SwiftData's `HistoryDelete`.
public protocol HistoryDelete<Model>: Sendable {
    /// The model class of the object deleted.
    associatedtype Model: PersistentModel
    /// The identifier of the object deleted.
    var changedPersistentIdentifier: PersistentIdentifier { get }
    /// The change's position among all changes of the history.
    var changeIdentifier: Int64 { get }
    /// The number of the transaction the change belongs to.
    var transactionIdentifier: Int64 { get }
    /// The values of the deleted object's attributes marked `.preserveValueOnDeletion`.
    var tombstone: HistoryTombstone<Model> { get }
}

/// An insert in a ``DefaultHistoryTransaction`` — SwiftData's `DefaultHistoryInsert`.
public struct DefaultHistoryInsert<Model: PersistentModel>: HistoryInsert, Hashable {
    /// The identifier of the object inserted.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The change's position: its transaction's number × 2³² plus its index within the
    /// transaction, so identifiers grow through the history and survive deletes of other transactions.
    public let changeIdentifier: Int64
    /// The number of the transaction the change belongs to.
    public let transactionIdentifier: Int64
}

/// An update in a ``DefaultHistoryTransaction`` — SwiftData's `DefaultHistoryUpdate`.
public struct DefaultHistoryUpdate<Model: PersistentModel>: HistoryUpdate, Hashable, @unchecked Sendable {
    /// The identifier of the object updated.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The change's position: its transaction's number × 2³² plus its index within the transaction.
    public let changeIdentifier: Int64
    /// The number of the transaction the change belongs to.
    public let transactionIdentifier: Int64
    /// The attributes and relationships changed, as key paths (those the model class declares).
    // Key paths are immutable: sharing them across threads is safe.
    public let updatedAttributes: [PartialKeyPath<Model>]
    /// The names of the attributes and relationships changed, in declaration order.
    public let updatedAttributeNames: [String]
}

/// A delete in a ``DefaultHistoryTransaction`` — SwiftData's `DefaultHistoryDelete`.
public struct DefaultHistoryDelete<Model: PersistentModel>: HistoryDelete, Hashable {
    /// The identifier of the object deleted.
    public let changedPersistentIdentifier: PersistentIdentifier
    /// The change's position: its transaction's number × 2³² plus its index within the transaction.
    public let changeIdentifier: Int64
    /// The number of the transaction the change belongs to.
    public let transactionIdentifier: Int64
    /// The values of the deleted object's attributes marked `.preserveValueOnDeletion`.
    public let tombstone: HistoryTombstone<Model>

    /// Deletes are equal when they are the same change.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.changeIdentifier == rhs.changeIdentifier && lhs.changedPersistentIdentifier == rhs.changedPersistentIdentifier
    }

    /// Hashes the change's position.
    public func hash(into hasher: inout Hasher) { hasher.combine(changeIdentifier) }
}

/// What the history keeps of a deleted object: the values its attributes
/// marked `.preserveValueOnDeletion` held — SwiftData's `HistoryTombstone`.
///
/// ```swift
/// if case .delete(let delete as DefaultHistoryDelete<Trip>) = change {
///     let name = delete.tombstone[\.name] as? String
/// }
/// ```
///
/// An attribute that held `nil`, or is not marked, has no value here. The
/// values are kept until the transaction is deleted
/// (``ModelContext/deleteHistory(_:)``, or everything with
/// ``ModelContainer/deleteAllData(errorHandler:)``).
public struct HistoryTombstone<Model: PersistentModel>: Sequence, @unchecked Sendable {
    /// The preserved values by attribute name, in declaration order.
    // Values are immutable value types.
    public let values: [(name: String, value: Value)]

    init(values: [(name: String, value: Value)]) { self.values = values }

    /// The preserved value of the attribute at `keyPath`, as the property's
    /// Swift type; `nil` when it was not preserved (or held `nil`). Typed
    /// `(any Sendable)?`, as SwiftData's:
    ///
    /// ```swift
    /// if case .delete(let delete) = change, let title = delete.tombstone[\Note.title] as? String { … }
    /// ```
    public subscript(keyPath: PartialKeyPath<Model>) -> (any Sendable)? {
        guard let name = ModelMetadata.of(Model.self).property(for: keyPath)?.name,
            let value = self[name]
        else { return nil }
        let type = Swift.type(of: keyPath).valueType
        let made: Any?
        if let persistable = type as? any PersistableValue.Type {
            made = persistable.init(persistentValue: value)
        } else if let decodable = type as? any Decodable.Type {
            made = CodableValue.decodeLeniently(decodable, from: value)
        } else {
            made = nil
        }
        guard let made else { return nil }
        return Self.sendable(made)
    }

    /// `value` as `any Sendable`. A marker protocol cannot be cast to at run
    /// time, and both existentials have the same layout. Sound here: the value
    /// was just made from its stored form, so nothing else refers to it.
    private static func sendable(_ value: Any) -> any Sendable {
        withUnsafePointer(to: value) { $0.withMemoryRebound(to: (any Sendable).self, capacity: 1) { $0.pointee } }
    }

    /// The preserved value of the attribute named `name`, as stored; `nil` when it was not preserved.
    public subscript(name: String) -> Value? {
        values.first { $0.name == name }?.value
    }

    /// Iterates the preserved values, by attribute name.
    public func makeIterator() -> IndexingIterator<[(name: String, value: Value)]> { values.makeIterator() }
}

extension HistoryDelete {
    /// The tombstone's values by attribute name, for code that does not know the model class.
    public var preservedValues: [(name: String, value: Value)] { tombstone.values }
}
