import Foundation
import Synchronization

/// A model's life with its backing data: the backing data its accessors
/// resolve and read unretained, its identifier, insertion into a context,
/// detaching when its object goes, and leaving the registry when it goes.
extension BackingData {
    /// Makes the model a view of an object just inserted at `ref`.
    func attach(to context: ModelContext, _ identifier: PersistentIdentifier, _ ref: ObjectRef, _ columns: ModelColumns) {
        self.context = context
        self.identifier = identifier
        snapshot = nil
        dropUnmanagedValues()
        refEpoch = context.graphEpoch
        cachedRef = ref
        self.columns = columns
        if columns.entity == Int(ref.entity), columns.epoch == refEpoch { setFast(columns, epoch: refEpoch) }
    }

    /// The backing data a model's `persistentBackingData` returns: its own,
    /// made now if it still has the shared placeholder (a class with no
    /// persisted property its initializer sets).
    ///
    /// A model sharing its context's backing data gets its own here, for the
    /// same object: whoever asks for a model's backing data may keep it,
    /// observe it, or edit through it.
    @inlinable
    public static func _resolved<Model: PersistentModel>(_ backing: inout BackingData, of model: Model) -> BackingData {
        if backing === _unset {
            backing = BackingData()
        } else if backing.isShared {
            backing = backing._unshare(model)
        }
        return backing
    }

    /// Calls `read` with a model's backing data, counting no reference: a
    /// getter's retain and release of it would cost more than the read itself.
    ///
    /// The model holds its backing data throughout: a getter replaces it only
    /// by giving a model that shares its context's backing data its own
    /// (``_unshare(_:)``), and the new one keeps the shared one alive.
    ///
    /// The reference is read as bits, from the property's address: loaded as
    /// a reference, Swift retains it for as long as `read` runs.
    @inlinable @inline(__always)
    public static func _reading<R>(_ backing: inout BackingData, _ read: (BackingData) -> R) -> R {
        Unmanaged<BackingData>.fromOpaque(_bits(of: &backing))._withUnsafeGuaranteedRef(read)
    }

    /// The bits of the reference `backing` holds; the access ends on return.
    @inlinable @inline(__always)
    static func _bits(of backing: inout BackingData) -> UnsafeRawPointer {
        withUnsafeMutablePointer(to: &backing) { UnsafeRawPointer($0).load(as: UnsafeRawPointer.self) }
    }

    /// Called by a `@Model` class's `deinit` (and when its backing data is
    /// replaced): its context stops handing the instance out.
    ///
    /// `shared` is the model's ``_SharedBackingRow``: which object it stands
    /// for when it shares this backing data.
    public func _modelWillGo(_ model: ObjectIdentifier, _ shared: _SharedBackingRow) {
        if isShared, shared.isShared { modelStoppedSharing() }
        guard let context, let identifier else { return }
        let id = isShared ? shared.id : identifier.id
        context.withTyped { $0.registry.remove(id, ifHolding: model) }
    }

    private static let temporaryNumbers = Mutex(UInt64(1) << 63)

    /// Temporary numbers count up from 2^63, above every number Folio hands
    /// out itself. A package's manifest may still declare identifiers that
    /// high (nothing refuses them yet), and then a temporary identifier can
    /// equal a stored one.
    static func nextTemporaryNumber() -> UInt64 {
        temporaryNumbers.withLock { number in
            number += 1
            return number
        }
    }

    /// The identifier, naming its context's store once the object has one; a
    /// temporary identifier (no store) before insertion.
    func identifier(entityName: @autoclosure () -> String) -> PersistentIdentifier {
        guard let identifier else { return PersistentIdentifier(entityName: entityName(), id: unmanagedState.temporaryNumber) }
        guard identifier.storeIdentifier == nil, let context else { return identifier }
        return identifier.inStore(context.core.storeIdentifier)
    }

    /// Makes the model unmanaged, keeping the values its object last had.
    func detach(from context: ModelContext, _ ref: ObjectRef) {
        let layout = context.graph.layout.entities[Int(ref.entity)]
        var values: [String: Value] = [:]
        for (index, attribute) in layout.attributes.enumerated() { values[attribute.name] = context.graph.value(ref, index) }
        snapshot = values
        if let identifier { context.unregister(self, id: identifier.id) }
        // Its object's row may live again (redo): no to-one read may return this model kept.
        context.typed.keptGeneration &+= 1
        self.context = nil
    }
}
